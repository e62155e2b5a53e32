// The demo's stand-in for Shopify's customer account pages (the current customer accounts, where a store's shoppers
// manage their account), held to Shopify's rules for extensions:
// - the profile page with the profile block, an order's status page with the order status block (signed in, or
//   pre-authenticated as from an order email: `?preauth=1`), and the app's full-page extension at
//   <root>/pages/<handle>, each extension target in a frame of its own running the real bundle
//   (dev/ui-extensions/bundle.ts) as Shopify runs each extension apart;
// - each frame's `shopify` global and `navigation` are exactly what @shopify/ui-extensions of the extension's
//   api_version gives its target (dev/ui-extensions/target-api.ts): blocks get no navigation.currentEntry, full
//   pages get navigation.currentEntry with Shopify's extension:/ URL (or another reading: `currentEntry`); anything else throws and is shown on the page as a violation (window.__apiViolations);
// - Polaris web components render with their roles (dev/ui-extensions/polaris-elements.ts); links follow Shopify's
//   protocols (extension:<handle>/, shopify:customer-account/…) to these pages;
// - session tokens are minted here with the app's secret (sub: the signed-in customer, dest: the shop; none on the
//   pre-authenticated page), so the secret never reaches the page. A customer signs in at <root>/login (a cookie);
//   without one, the first customer is signed in.
// Its own origin, like shopify.com/<id>/account: the extensions call the app cross-origin, as they do on Shopify.
import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  bundleFrameRuntime,
  bundleUiExtensions,
  type BundledExtension,
  type BundledTarget,
} from "../ui-extensions/bundle";
import { mintCustomerAccountToken } from "../shopify/session-token";
import { targetApis } from "../ui-extensions/target-api";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROFILE = "customer-account.profile.block.render";
const ORDER = "customer-account.order-status.block.render";
const FULL_PAGE = "customer-account.page.render";
const COOKIE = "account_customer";

export interface AccountCustomer {
  id: string;
  name: string;
  email: string;
}

export interface CustomerAccountOptions {
  /** Where the extensions call the app. */
  appUrl: string;
  shop: string;
  shopName: string;
  apiKey: string;
  apiSecret: string;
  /** Customers who can sign in; the first is signed in until another signs in at <root>/login. */
  customers: AccountCustomer[];
  /** Orders with a status page (each its customer's only). */
  orders: { id: string; name: string; customerId: string }[];
  /** Where the bundles are written. */
  outDir: string;
  locale?: string;
  /**
   * The form of navigation.currentEntry.url a full-page extension is given. Default "extension:/", as Shopify's example
   * (Shopify/ui-extensions packages/ui-extensions/docs/surfaces/customer-account/reference/examples/navigation/
   * use-current-entry.example.tsx); the others are the readings Shopify's sources leave open (docs/decisions/0010).
   */
  currentEntry?: CurrentEntryForm;
  /**
   * Where an external link (https) with target "auto" (Polaris' default) opens: a new window, as Shopify's link docs
   * say (shopify.dev/docs/apps/build/customer-accounts/migrate-to-web-components/link), or this one.
   */
  externalLinks?: "new-window" | "same-window";
}

/** extension:/ · extension:/<route> · extension:// (the Navigation API page's prose) · the browser's address. */
export type CurrentEntryForm = "extension:/" | "extension:/route" | "extension://" | "https" | "https-query";
export const CURRENT_ENTRY_FORMS: CurrentEntryForm[] = [
  "extension:/",
  "extension:/route",
  "extension://",
  "https",
  "https-query",
];

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// JSON inside <script type="application/json">: no "</script>" can end it early.
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export interface CustomerAccountPages {
  server: http.Server;
  /** The account's root path (the profile page is <root>/profile), as the Admin API's customerAccountsV2.url says. */
  rootPath: string;
  /** What the pages give extensions from now on (tests switch between Shopify's readings without a restart). */
  behaviour: { currentEntry: CurrentEntryForm; externalLinks: "new-window" | "same-window" };
}

interface Mounted {
  ext: BundledExtension;
  target: BundledTarget;
}

export async function createCustomerAccountPages(options: CustomerAccountOptions): Promise<CustomerAccountPages> {
  if (options.customers.length === 0) throw new Error("the customer account pages need a customer");
  const bundles: BundledExtension[] = await bundleUiExtensions(options.outDir, { appUrl: options.appUrl });
  const mounted = new Map<string, Mounted>(); // "<handle>/<target>"
  for (const ext of bundles)
    for (const target of ext.targets)
      if (target.target.startsWith("customer-account.")) mounted.set(`${ext.handle}/${target.target}`, { ext, target });
  const find = (target: string) => [...mounted.values()].find((m) => m.target.target === target);
  const apiVersion = [...mounted.values()][0]?.ext.apiVersion;
  if (!apiVersion) throw new Error("no customer account UI extension to show");
  const apis = targetApis([...new Set([...mounted.values()].map((m) => m.target.target))], apiVersion);

  const runtimeJs = await bundleFrameRuntime(path.join(HERE, "frame-runtime.ts"));
  const css = readFileSync(path.join(HERE, "styles.css"), "utf8");
  const locale = options.locale ?? "en";
  const translations = (ext: BundledExtension) =>
    JSON.parse(
      readFileSync(path.join(ext.dir, "locales", locale === "en" ? "en.default.json" : `${locale}.json`), "utf8"),
    ) as Record<string, unknown>;
  const rootPath = "/account";
  const behaviour = {
    currentEntry: options.currentEntry ?? "extension:/",
    externalLinks: options.externalLinks ?? "new-window",
  };

  const send = (
    res: http.ServerResponse,
    status: number,
    body: string,
    type = "text/html; charset=utf-8",
    headers: http.OutgoingHttpHeaders = {},
  ) => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
    res.end(body);
  };
  const signedIn = (req: http.IncomingMessage): AccountCustomer => {
    const id = /(?:^|;\s*)account_customer=(\d{1,20})/.exec(req.headers.cookie ?? "")?.[1];
    return options.customers.find((c) => c.id === id) ?? options.customers[0];
  };

  const frame = (
    m: Mounted,
    req: http.IncomingMessage,
    order: { id: string; name: string } | null,
    preauth: boolean,
  ) => {
    const config = {
      target: m.target.target,
      handle: m.ext.handle,
      bundle: `/extensions/${encodeURIComponent(m.ext.handle)}/${encodeURIComponent(m.target.target)}.js`,
      locale,
      apiVersion: m.ext.apiVersion,
      api: apis[m.target.target],
      translations: translations(m.ext),
      rootPath,
      order: order ? { id: `gid://shopify/Order/${order.id}`, name: order.name } : null,
      authenticationState: preauth ? "pre_authenticated" : "fully_authenticated",
      customer: preauth ? null : signedIn(req).id,
      currentEntry: behaviour.currentEntry,
      externalLinks: behaviour.externalLinks,
    };
    return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escape(m.ext.handle)}</title><link rel="stylesheet" href="/styles.css">
<script type="application/json" id="extension-config">${scriptJson(config)}</script>
<script type="module" src="/frame-runtime.js"></script></head><body></body></html>`;
  };

  const page = (req: http.IncomingMessage, title: string, main: string, preauth = false) => {
    const customer = signedIn(req);
    const who = preauth ? `<a href="${rootPath}/login">Sign in</a>` : `<span>${escape(customer.name)}</span>`;
    return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escape(title)} · ${escape(options.shopName)}</title>
<link rel="stylesheet" href="/styles.css">
<style>
  header { display: flex; justify-content: space-between; align-items: center; padding: 14px 28px; border-bottom: 1px solid #e3e3e3; background: #fff; }
  nav a, nav span { margin-left: 18px; color: #1a1a1a; }
  main { max-width: 760px; margin: 28px auto; padding: 0 20px; display: grid; gap: 20px; }
  body { background: #f6f6f7; }
  .card { background: #fff; border: 1px solid #dcdcdc; border-radius: 12px; padding: 16px 20px; }
  iframe { width: 100%; border: 0; height: 120px; display: block; }
  h1 { font-size: 24px; margin: 0; }
  [data-api-violations] { background: #fdecea; border: 2px solid #a0201a; padding: 10px 14px; border-radius: 8px; }
</style></head><body>
<header><strong>${escape(options.shopName)}</strong><nav aria-label="Account"><a href="${rootPath}/orders">Orders</a><a href="${rootPath}/profile">Profile</a>${who}</nav></header>
<main>${main}</main>
<script>
  // Each frame reports its height (a real host lays extensions out inline), and any use of an API Shopify would not
  // give its target, which is shown here so it cannot go unnoticed.
  window.__apiViolations = [];
  addEventListener("message", (event) => {
    if (event.origin !== location.origin || !event.data) return;
    if (typeof event.data.frameHeight === "number") {
      for (const f of document.querySelectorAll("iframe[data-target]")) if (f.dataset.target === event.data.target) f.style.height = event.data.frameHeight + "px";
    }
    if (typeof event.data.apiViolation === "string") {
      window.__apiViolations.push(event.data.apiViolation);
      let box = document.querySelector("[data-api-violations]");
      if (!box) {
        box = document.createElement("div");
        box.setAttribute("role", "alert");
        box.setAttribute("data-api-violations", "");
        document.querySelector("main").prepend(box);
      }
      box.textContent = "Stand-in: the extension used an API Shopify does not give it: " + window.__apiViolations.join("; ");
    }
  });
</script></body></html>`;
  };

  const block = (m: Mounted, query: Record<string, string> = {}) => {
    const src = `/frame?${new URLSearchParams({ handle: m.ext.handle, target: m.target.target, ...query })}`;
    return `<iframe data-target="${escape(m.target.target)}" title="${escape(String(translations(m.ext).name ?? m.ext.handle))}" src="${escape(src)}"></iframe>`;
  };
  const ordersOf = (customer: AccountCustomer) => options.orders.filter((o) => o.customerId === customer.id);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://account");
    const p = url.pathname;
    if (req.method === "POST" && p === "/session-token") {
      // Shopify's session token: HS256 with the app's secret, short-lived; no customer on the pre-authenticated page.
      const customer = url.searchParams.get("preauth") === "1" ? null : signedIn(req).id;
      void mintCustomerAccountToken(options.shop, customer, {
        apiKey: options.apiKey,
        secret: options.apiSecret,
        lifetimeSeconds: 60,
      }).then((token) => send(res, 200, token, "text/plain"));
      return;
    }
    if (req.method !== "GET") return send(res, 405, "Method not allowed", "text/plain");
    if (p === "/favicon.ico") return send(res, 204, "", "image/x-icon"); // the store has none (a browser asks anyway)
    // Nobody signed in yet: the first customer is, on the account pages and the store alike (one sign-in, as with
    // new customer accounts), until another signs in at <root>/login.
    const implicit = !/(?:^|;\s*)account_customer=/.test(req.headers.cookie ?? "");
    if (
      implicit &&
      p.startsWith(`${rootPath}/`) &&
      p !== `${rootPath}/login` &&
      url.searchParams.get("preauth") !== "1"
    )
      res.setHeader("set-cookie", [
        `${COOKIE}=${options.customers[0].id}; Path=/; HttpOnly; SameSite=Lax`,
        `customer_id=${options.customers[0].id}; Path=/; HttpOnly; SameSite=Lax`,
      ]);
    if (p === "/" || p === rootPath) return send(res, 303, "", "text/plain", { location: `${rootPath}/profile` });
    if (p === `${rootPath}/login`) {
      const id = url.searchParams.get("customer");
      const back = url.searchParams.get("return_url") ?? "";
      const to = back.startsWith(`${rootPath}/`) && !back.startsWith("//") ? back : `${rootPath}/profile`;
      if (id && options.customers.some((c) => c.id === id)) {
        // One sign-in for the account pages and the online store (new customer accounts): the storefront stand-in
        // reads customer_id (cookies are per host, not per port, so both stand-ins on 127.0.0.1 see it).
        return send(res, 303, "", "text/plain", {
          location: to,
          "set-cookie": [
            `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`,
            `customer_id=${id}; Path=/; HttpOnly; SameSite=Lax`,
          ],
        });
      }
      const choices = options.customers
        .map(
          (c) =>
            `<li><a data-login="${c.id}" href="${rootPath}/login?${new URLSearchParams({ customer: c.id, return_url: to })}">${escape(c.name)}</a></li>`,
        )
        .join("");
      return send(res, 200, page(req, "Sign in", `<h1>Sign in</h1><div class="card"><ul>${choices}</ul></div>`, true));
    }
    if (p === `${rootPath}/profile`) {
      const customer = signedIn(req);
      const profileBlock = find(PROFILE);
      return send(
        res,
        200,
        page(
          req,
          "Profile",
          `<h1>Profile</h1><div class="card"><strong>${escape(customer.name)}</strong><br>${escape(customer.email)}</div>${profileBlock ? block(profileBlock) : ""}`,
        ),
      );
    }
    if (p === `${rootPath}/orders`) {
      const links = ordersOf(signedIn(req))
        .map((o) => `<li><a href="${rootPath}/orders/${o.id}">Order ${escape(o.name)}</a></li>`)
        .join("");
      return send(res, 200, page(req, "Orders", `<h1>Orders</h1><div class="card"><ul>${links}</ul></div>`));
    }
    const orderPage = new RegExp(`^${rootPath}/orders/(\\d{1,20})$`).exec(p);
    if (orderPage) {
      const preauth = url.searchParams.get("preauth") === "1";
      // Signed in, only the customer's own orders; pre-authenticated, the order the email linked to.
      const order = options.orders.find((o) => o.id === orderPage[1] && (preauth || o.customerId === signedIn(req).id));
      const orderBlock = find(ORDER);
      if (!order) return send(res, 404, page(req, "Not found", "<h1>Order not found</h1>"));
      const query: Record<string, string> = preauth ? { order: order.id, preauth: "1" } : { order: order.id };
      return send(
        res,
        200,
        page(
          req,
          `Order ${order.name}`,
          `<h1>Order ${escape(order.name)}</h1><div class="card">Confirmed · Fulfilled</div>${orderBlock ? block(orderBlock, query) : ""}`,
          preauth,
        ),
      );
    }
    const fullPage = new RegExp(`^${rootPath}/pages/([a-z0-9-]{1,60})$`).exec(p);
    if (fullPage) {
      const m = mounted.get(`${fullPage[1]}/${FULL_PAGE}`);
      if (!m) return send(res, 404, page(req, "Not found", "<h1>Page not found</h1>"));
      return send(res, 200, page(req, String(translations(m.ext).pageName ?? m.ext.handle), block(m)));
    }
    if (p === "/frame") {
      const m = mounted.get(`${url.searchParams.get("handle")}/${url.searchParams.get("target")}`);
      if (!m) return send(res, 404, "Not found", "text/plain");
      const preauth = url.searchParams.get("preauth") === "1";
      const order =
        m.target.target === ORDER ? (options.orders.find((o) => o.id === url.searchParams.get("order")) ?? null) : null;
      if (m.target.target === ORDER && (!order || (!preauth && order.customerId !== signedIn(req).id)))
        return send(res, 404, "Not found", "text/plain");
      return send(res, 200, frame(m, req, order, preauth));
    }
    if (p === "/frame-runtime.js") return send(res, 200, runtimeJs, "text/javascript; charset=utf-8");
    if (p === "/styles.css") return send(res, 200, css, "text/css; charset=utf-8");
    const bundle = /^\/extensions\/([\w-]+)\/([\w.-]+)\.js$/.exec(p);
    const file = bundle && mounted.get(`${bundle[1]}/${decodeURIComponent(bundle[2])}`)?.target.file;
    if (file) return send(res, 200, readFileSync(file, "utf8"), "text/javascript; charset=utf-8");
    return send(res, 404, "Not found", "text/plain");
  });
  return { server, rootPath, behaviour };
}
