// The admin stand-in's Shopify pages (the demo; dev/storefront/server.ts routes /admin/* here):
// - /admin/orders/<id>: an order page with the app's order details block (extensions/order-sync-block) in a frame of
//   its own, as Shopify's admin runs a UI extension: its bundle (dev/ui-extensions/bundle.ts) and a `shopify` global
//   with exactly the members Shopify's types give the target (./frame-runtime.ts; the order's id, session tokens,
//   the extension's English texts, and no toast: Shopify gives admin blocks none). Its relative requests
//   (/api/order-block) reach the app through the stand-in, which adds a fresh session token to each.
// - /admin/flow: the Shopify Flow triggers the app sent (recorded by the Admin API stand-in, dev/admin-api/flow.ts).
// Polaris' web components come from Shopify's CDN, out of reach here: dev/ui-extensions/polaris-elements.ts gives them
// their roles, and a little CSS stands in for their looks.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type http from "node:http";
import { bundleFrameRuntime, findUiExtensions } from "../ui-extensions/bundle";
import { mintSessionToken } from "../shopify/session-token";
import { EXTENSIONS_DIR } from "../storefront/liquid";
import { targetApi } from "../ui-extensions/target-api";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const frameRuntime = () => bundleFrameRuntime(path.join(HERE, "frame-runtime.ts"));

export interface AdminPagesOptions {
  shop: string;
  apiKey: string;
  apiSecret: string;
  /** Where bundleUiExtensions wrote the bundles (<dir>/<handle>/<target>.js). */
  uiExtensionsDir?: string;
  /** The Flow triggers file (JSON lines) the Admin API stand-in appends to. */
  flowLog?: string;
}

const BLOCK = { handle: "order-sync-block", target: "admin.order-details.block.render" };
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
  body { margin: 0; font: 13px/1.45 -apple-system, "Segoe UI", Roboto, sans-serif; color: #303030; background: #f1f1f1; }
  s-admin-block { display: block; background: #fff; border-radius: 12px; box-shadow: 0 1px 2px rgba(0,0,0,.15); padding: 16px; }
  s-stack { display: flex; flex-direction: column; gap: 6px; }
  s-stack[direction=inline] { flex-direction: row; flex-wrap: wrap; align-items: center; gap: 8px; }
  s-stack[gap=base] { gap: 16px; }
  s-stack[data-record] { border-top: 1px solid #ebebeb; padding-top: 12px; }
  s-stack[data-record]:first-of-type { border-top: 0; padding-top: 0; }
  s-text[type=strong] { font-weight: 650; }
  s-text[color=subdued], s-paragraph[color=subdued] { color: #616161; }
  s-paragraph { display: block; }
  s-badge { border-radius: 8px; padding: 1px 8px; background: #e3e3e3; font-weight: 550; }
  s-badge[tone=success] { background: #cdfee1; color: #0c5132; }
  s-badge[tone=critical] { background: #fedad9; color: #8e1f0b; }
  s-badge[tone=warning] { background: #ffeb78; color: #4f4700; }
  s-badge[tone=info] { background: #e0f0ff; color: #00527c; }
  s-banner { display: block; border-radius: 8px; padding: 8px 12px; background: #fff1e3; }
  s-banner[tone=critical] { background: #fee9e8; }
  s-banner[tone=success] { background: #cdfee1; }
  s-spinner::before { content: "…"; }
`;

function orderPage(orderId: string) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Order ${escape(orderId)} · Shopify admin (stand-in)</title>
<style>${STYLE}
  header { background: #1a1a1a; color: #fff; padding: 10px 20px; font-weight: 600; }
  main { max-width: 1000px; margin: 20px auto; display: grid; grid-template-columns: 2fr 1fr; gap: 16px; padding: 0 16px; }
  /* Shopify's admin stacks the order page's side column under the main one on a narrow screen (Polaris' md). */
  @media (max-width: 767px) { main { grid-template-columns: 1fr; } }
  .card { background: #fff; border-radius: 12px; box-shadow: 0 1px 2px rgba(0,0,0,.15); padding: 16px; }
  iframe { width: 100%; border: 0; min-height: 160px; display: block; }
</style></head>
<body><header>Shopify admin (local stand-in) › Orders › ${escape(orderId)}</header>
<main>
  <section><div class="card"><h2 style="margin:0 0 8px;font-size:16px">Order ${escape(orderId)}</h2>
    <p style="margin:0;color:#616161">Shopify's own order details (items, payment, fulfillment) are not part of the stand-in.
    The block beside them is the app's order details block, as the admin renders it.</p></div></section>
  <aside><iframe id="block" title="Workspace sync" src="/admin/orders/${encodeURIComponent(orderId)}/block"></iframe></aside>
</main>
<script>
  // Any use of an API Shopify would not give the block is shown here, so it cannot go unnoticed.
  window.__apiViolations = [];
  addEventListener("message", (event) => {
    if (event.origin !== location.origin) return;
    if (event.data?.height) document.getElementById("block").style.height = event.data.height + "px";
    if (event.data?.navigate) location.href = event.data.navigate;
    if (typeof event.data?.apiViolation === "string") {
      window.__apiViolations.push(event.data.apiViolation);
      const box = document.createElement("p");
      box.setAttribute("role", "alert");
      box.textContent = "Stand-in: the block used an API Shopify does not give it: " + event.data.apiViolation;
      document.querySelector("main").prepend(box);
    }
  });
</script>
</body></html>`;
}

let blockApi: ReturnType<typeof targetApi> | undefined;
/** The block target's API, from its toml and Shopify's types: read once, it does not change while this runs. */
function blockTargetApi() {
  if (blockApi) return blockApi;
  const ext = findUiExtensions().find((e) => e.handle === BLOCK.handle);
  if (!ext) throw new Error(`no ${BLOCK.handle} UI extension`);
  return (blockApi = targetApi(BLOCK.target, ext.apiVersion));
}

function blockFrame(orderId: string, messages: unknown) {
  const config = {
    api: blockTargetApi(),
    orderId,
    bundle: `/admin/ui-extensions/${BLOCK.handle}.js`,
    messages,
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Workspace sync</title><style>${STYLE} body { background: transparent; }</style>
<script type="application/json" id="extension-config">${JSON.stringify(config).replace(/</g, "\\u003c")}</script>
<script type="module" src="/admin/frame-runtime.js"></script>
</head><body></body></html>`;
}

function flowPage(flowLog: string | undefined) {
  const lines = flowLog && existsSync(flowLog) ? readFileSync(flowLog, "utf8").split("\n").filter(Boolean) : [];
  const rows = lines
    .map((line) => JSON.parse(line) as { at: string; handle: string; payload: unknown })
    .reverse()
    .map(
      (c) =>
        `<tr><td>${escape(c.at)}</td><td>${escape(c.handle)}</td><td><pre>${escape(JSON.stringify(c.payload, null, 2))}</pre></td></tr>`,
    )
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shopify Flow triggers (stand-in)</title>
<style>body{font:13px system-ui;margin:20px} td{vertical-align:top;border-top:1px solid #ddd;padding:6px} pre{margin:0}</style></head>
<body><h1>Shopify Flow triggers the app sent</h1>
<p>${lines.length} trigger(s). Each failed import sends "Order import needs attention" once (Settings → Shopify Flow switches it off).</p>
<table><tr><th>At</th><th>Trigger</th><th>Payload</th></tr>${rows}</table></body></html>`;
}

/** Answers the stand-in's own admin pages; false when the request is not one of them (it goes to the app). */
export async function adminPage(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  options: AdminPagesOptions,
): Promise<boolean> {
  const html = (status: number, body: string, type = "text/html; charset=utf-8") => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store" }).end(body);
    return true;
  };
  const order = /^\/admin\/orders\/(\d{1,20})(\/block)?$/.exec(url.pathname);
  if (order && req.method === "GET") {
    if (!order[2]) return html(200, orderPage(order[1]));
    const messages = JSON.parse(
      readFileSync(path.join(EXTENSIONS_DIR, BLOCK.handle, "locales/en.default.json"), "utf8"),
    );
    return html(200, blockFrame(order[1], messages));
  }
  if (url.pathname === "/admin/frame-runtime.js") return html(200, await frameRuntime(), "text/javascript");
  if (url.pathname === `/admin/ui-extensions/${BLOCK.handle}.js`) {
    const file = options.uiExtensionsDir ? path.join(options.uiExtensionsDir, BLOCK.handle, `${BLOCK.target}.js`) : "";
    if (!file || !existsSync(file)) return html(404, "The extension's bundle was not built.", "text/plain");
    return html(200, readFileSync(file, "utf8"), "text/javascript");
  }
  if (url.pathname === "/admin/session-token" && req.method === "POST") {
    return html(
      200,
      await mintSessionToken(options.shop, { apiKey: options.apiKey, secret: options.apiSecret, lifetimeSeconds: 60 }),
      "text/plain",
    );
  }
  if (url.pathname === "/admin/flow" && req.method === "GET") return html(200, flowPage(options.flowLog));
  return false;
}
