// The demo's stand-in for Shopify's customer account pages (the current customer accounts, where a store's shoppers
// now manage their account): the logged-in demo customer's profile page with the app's profile block, and the
// status of one of their orders with the order status block. Each block runs the real extension bundle
// (scripts/ui-extensions.ts) in a frame of its own, as Shopify runs each extension apart, with a `shopify` global
// whose session tokens this server mints with the app's secret (sub: the customer, dest: the shop). Its own
// origin, like shopify.com/<id>/account: the blocks call the app cross-origin, as they do on Shopify.
import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { bundleUiExtensions, type BundledExtension } from "../../scripts/ui-extensions";
import { mintCustomerAccountToken } from "../shopify/session-token";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const HANDLE = "workspace-account";
const PROFILE = "customer-account.profile.block.render";
const ORDER = "customer-account.order-status.block.render";

export interface CustomerAccountOptions {
  /** Where the blocks call the app. */
  appUrl: string;
  shop: string;
  shopName: string;
  apiKey: string;
  apiSecret: string;
  customer: { id: string; name: string; email: string };
  /** The order whose status page shows the order status block. */
  order: { id: string; name: string };
  /** Where the bundles are written. */
  outDir: string;
  locale?: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// JSON inside <script type="application/json">: no "</script>" can end it early.
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export interface CustomerAccountPages {
  server: http.Server;
  /** The account's root path (the profile page is <root>/profile), as the Admin API's customerAccountsV2.url says. */
  rootPath: string;
}

export async function createCustomerAccountPages(options: CustomerAccountOptions): Promise<CustomerAccountPages> {
  const bundles: BundledExtension[] = await bundleUiExtensions(options.outDir, { appUrl: options.appUrl });
  const ext = bundles.find((b) => b.handle === HANDLE);
  if (!ext) throw new Error(`no ${HANDLE} UI extension to show`);
  const runtime = await build({ entryPoints: [path.join(HERE, "frame-runtime.ts")], bundle: true, format: "esm", target: "es2022", write: false, logLevel: "silent" });
  const runtimeJs = runtime.outputFiles[0].text;
  const css = readFileSync(path.join(HERE, "styles.css"), "utf8");
  const locale = options.locale ?? "en";
  const translations = JSON.parse(readFileSync(path.join(ext.dir, "locales", locale === "en" ? "en.default.json" : `${locale}.json`), "utf8"));
  const rootPath = "/account";

  const send = (res: http.ServerResponse, status: number, body: string, type = "text/html; charset=utf-8", headers: http.OutgoingHttpHeaders = {}) => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
    res.end(body);
  };

  const frame = (target: string) => {
    const order = target === ORDER ? { id: `gid://shopify/Order/${options.order.id}`, name: options.order.name } : null;
    const config = { target, bundle: `/extensions/${encodeURIComponent(target)}.js`, locale, apiVersion: ext.apiVersion, translations, order };
    return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><link rel="stylesheet" href="/styles.css">
<script type="application/json" id="extension-config">${scriptJson(config)}</script>
<script type="module" src="/frame-runtime.js"></script></head><body></body></html>`;
  };

  const page = (title: string, main: string) => `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escape(title)}</title>
<link rel="stylesheet" href="/styles.css">
<style>
  header { display: flex; justify-content: space-between; align-items: center; padding: 14px 28px; border-bottom: 1px solid #e3e3e3; background: #fff; }
  nav a { margin-left: 18px; color: #1a1a1a; }
  main { max-width: 760px; margin: 28px auto; padding: 0 20px; display: grid; gap: 20px; }
  body { background: #f6f6f7; }
  .card { background: #fff; border: 1px solid #dcdcdc; border-radius: 12px; padding: 16px 20px; }
  iframe { width: 100%; border: 0; height: 120px; display: block; }
  h1 { font-size: 24px; margin: 0; }
</style></head><body>
<header><strong>${escape(options.shopName)}</strong><nav><a href="${rootPath}/orders">Orders</a><a href="${rootPath}/profile">Profile</a><span style="margin-left:18px">${escape(options.customer.name)}</span></nav></header>
<main>${main}</main>
<script>
  // Each block's frame reports its height; a real host lays blocks out inline.
  addEventListener("message", (event) => {
    if (event.origin !== location.origin || !event.data || typeof event.data.frameHeight !== "number") return;
    for (const f of document.querySelectorAll("iframe[data-target]")) if (f.dataset.target === event.data.target) f.style.height = event.data.frameHeight + "px";
  });
</script></body></html>`;

  const block = (target: string) => `<iframe data-target="${target}" title="${target}" src="/frame?target=${encodeURIComponent(target)}"></iframe>`;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://account");
    const p = url.pathname;
    if (req.method === "POST" && p === "/session-token") {
      // Shopify's session token for the logged-in customer: HS256 with the app's secret, short-lived.
      void mintCustomerAccountToken(options.shop, options.customer.id, { apiKey: options.apiKey, secret: options.apiSecret, lifetimeSeconds: 60 }).then(
        (token) => send(res, 200, token, "text/plain"),
      );
      return;
    }
    if (req.method !== "GET") return send(res, 405, "Method not allowed", "text/plain");
    if (p === "/" || p === rootPath) return send(res, 303, "", "text/plain", { location: `${rootPath}/profile` });
    if (p === `${rootPath}/profile`) {
      return send(
        res,
        200,
        page(
          "Profile",
          `<h1>Profile</h1>
<div class="card"><strong>${escape(options.customer.name)}</strong><br>${escape(options.customer.email)}</div>
${block(PROFILE)}`,
        ),
      );
    }
    if (p === `${rootPath}/orders`) {
      return send(res, 200, page("Orders", `<h1>Orders</h1><div class="card"><a href="${rootPath}/orders/${options.order.id}">Order ${escape(options.order.name)}</a></div>`));
    }
    if (p === `${rootPath}/orders/${options.order.id}`) {
      return send(res, 200, page(`Order ${options.order.name}`, `<h1>Order ${escape(options.order.name)}</h1><div class="card">Confirmed · Fulfilled</div>${block(ORDER)}`));
    }
    if (p === "/frame") {
      const target = url.searchParams.get("target");
      return target === PROFILE || target === ORDER ? send(res, 200, frame(target)) : send(res, 404, "Not found", "text/plain");
    }
    if (p === "/frame-runtime.js") return send(res, 200, runtimeJs, "text/javascript; charset=utf-8");
    if (p === "/styles.css") return send(res, 200, css, "text/css; charset=utf-8");
    const bundle = /^\/extensions\/([\w.-]+)\.js$/.exec(p);
    const file = bundle && ext.targets.find((t) => t.target === decodeURIComponent(bundle[1]))?.file;
    if (file) return send(res, 200, readFileSync(file, "utf8"), "text/javascript; charset=utf-8");
    return send(res, 404, "Not found", "text/plain");
  });
  return { server, rootPath };
}
