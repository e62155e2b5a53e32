// The local stand-in for Shopify in front of the app, on one port:
// - a storefront (theme pages rendered from dev/storefront/theme with the app's real theme blocks, a cart over the
//   Ajax Cart API with the Section Rendering API's `sections` for the Dawn-like cart drawer, a password-less
//   customer login),
// - Shopify's app proxy: /apps/workspace/* (or the path in `proxyPrefix`, as for a merchant who changed it; the
//   app blocks' "App proxy path" setting is set to match) is signed (logged_in_customer_id from the login,
//   path_prefix) and forwarded to the app's /proxy/*; Liquid answers are rendered inside the theme,
// - the admin frame: every other request goes to the app with a fresh session token, as App Bridge adds it.
import http from "node:http";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { proxyUrl, PROXY_PREFIX } from "../shopify/app-proxy";
import { mintSessionToken } from "../shopify/session-token";
import {
  customerName,
  DEMO_CURRENCY,
  DEMO_CUSTOMERS,
  DEMO_PRODUCTS,
  DEMO_SHOP_NAME,
  type DemoCustomer,
} from "../demo-store";
import { CartError, Carts } from "./cart";
import { cookies, parseFields, readBody, safeReturn } from "./requests";
import { adminPage } from "../admin/order-page";
import {
  EXTENSIONS_DIR,
  loadAppBlocks,
  renderAppBlock,
  renderPage,
  renderProxyLiquid,
  renderSection,
  sectionIds,
  THEME_DIR,
} from "./liquid";

export interface StandInOptions {
  /** Where the app listens (loopback). */
  appUrl: string;
  shop: string;
  apiKey: string;
  apiSecret: string;
  /** The order page block's bundle and the Flow triggers log, for /admin/orders/<id> and /admin/flow. */
  uiExtensionsDir?: string;
  flowLog?: string;
  /** The store's app proxy path (prefix + subpath), default /apps/workspace. */
  proxyPrefix?: string;
  /** Who can sign in (default the demo's customers): the customer account stand-in's, when both run together. */
  customers?: DemoCustomer[];
}

const STOREFRONT = /^\/($|products\/|collections\/|cart($|\/|\.js)|account($|\/)|cdn\/(theme|extensions)\/)/;
const cents = (price: string) => Math.round(Number(price) * 100);

export function createStandIn(options: StandInOptions): http.Server {
  const prefix = options.proxyPrefix ?? PROXY_PREFIX;
  const customers = options.customers ?? DEMO_CUSTOMERS;
  const carts = new Carts();
  const blocks = loadAppBlocks();
  const products = DEMO_PRODUCTS.map((p) => ({
    ...p,
    url: `/products/${p.handle}`,
    price: cents(p.price),
    variant_id: p.variantId,
  }));
  const routes = {
    root_url: "/",
    cart_url: "/cart",
    cart_add_url: "/cart/add",
    account_url: "/account",
    account_login_url: "/account/login",
    account_logout_url: "/account/logout",
  };

  function customerOf(req: http.IncomingMessage): DemoCustomer | null {
    return customers.find((c) => c.id === cookies(req).customer_id) ?? null;
  }

  async function globals(req: http.IncomingMessage, cartToken: string, template: string) {
    const customer = customerOf(req);
    const base = {
      shop: {
        name: DEMO_SHOP_NAME,
        permanent_domain: options.shop,
        domain: req.headers.host ?? "",
        currency: DEMO_CURRENCY,
      },
      customer: customer
        ? {
            id: Number(customer.id),
            name: customerName(customer),
            first_name: customer.firstName,
            last_name: customer.lastName,
            email: customer.email,
          }
        : null,
      cart: carts.json(cartToken),
      routes,
      request: {
        path: new URL(req.url ?? "/", "http://x").pathname,
        host: req.headers.host ?? "",
        locale: { iso_code: "en" },
      },
      template,
      products,
    };
    const place = async (filter: (b: (typeof blocks)[number]) => boolean) =>
      (
        await Promise.all(
          blocks.filter(filter).map((b, i) => renderAppBlock(b, base, `${b.name}-${i}`, { proxy_path: prefix })),
        )
      ).join("\n");
    const section = (b: (typeof blocks)[number]) => b.target === "section";
    return {
      ...base,
      app_blocks: {
        cart: await place((b) => section(b) && /cart/.test(b.name)),
        account: await place((b) => section(b) && !/cart/.test(b.name)),
      },
      app_embeds: await place((b) => b.target === "body"),
    };
  }

  function send(
    res: http.ServerResponse,
    status: number,
    body: string | Buffer,
    headers: http.OutgoingHttpHeaders = {},
  ) {
    res
      .writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...headers })
      .end(body);
  }

  function sendAsset(res: http.ServerResponse, file: string) {
    if (!existsSync(file)) return send(res, 404, "Not found", { "content-type": "text/plain" });
    const type = file.endsWith(".css")
      ? "text/css"
      : file.endsWith(".js")
        ? "text/javascript"
        : "application/octet-stream";
    send(res, 200, readFileSync(file), { "content-type": type });
  }

  /** The app's answer to a proxied or admin request, piped back, with Shopify's domain turned into ours. */
  function forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    target: URL,
    headers: http.OutgoingHttpHeaders,
    body?: Buffer,
    liquid?: (source: string) => Promise<string>,
  ) {
    const upstream = http.request(
      target,
      { method: req.method, headers: { ...headers, host: target.host } },
      (response) => {
        const out = { ...response.headers };
        // The app sends shoppers back to the store's own domain (https://<shop>/…): here, that is this stand-in.
        if (out.location?.startsWith(`https://${options.shop}/`))
          out.location = out.location.slice(`https://${options.shop}`.length);
        if (!liquid || !String(out["content-type"]).includes("application/liquid")) {
          res.writeHead(response.statusCode ?? 502, out);
          response.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          liquid(Buffer.concat(chunks).toString("utf8")).then(
            (html) => send(res, response.statusCode ?? 200, html),
            () => send(res, 500, "The app's Liquid could not be rendered."),
          );
        });
      },
    );
    upstream.on("error", () => (res.headersSent ? res.destroy() : send(res, 502, "The app is not answering.")));
    if (body) upstream.end(body);
    else req.pipe(upstream);
  }

  async function storefront(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const jar = cookies(req);
    const { token, created } = carts.open(jar.cart);
    const cartCookie: http.OutgoingHttpHeaders = created
      ? { "set-cookie": `cart=${token}; Path=/; HttpOnly; SameSite=Lax` }
      : {};
    const json = (status: number, value: unknown) =>
      send(res, status, JSON.stringify(value), { "content-type": "application/json", ...cartCookie });
    const page = async (name: string, extra: Record<string, unknown> = {}, status = 200) =>
      send(res, status, await renderPage({ name }, { ...(await globals(req, token, name)), ...extra }), cartCookie);
    const p = url.pathname;

    if (p.startsWith("/cdn/theme/assets/")) return sendAsset(res, path.join(THEME_DIR, "assets", path.basename(p)));
    const ext = /^\/cdn\/extensions\/([\w-]+)\/assets\/([\w.-]+)$/.exec(p);
    if (ext) return sendAsset(res, path.join(EXTENSIONS_DIR, ext[1], "assets", ext[2]));

    // The Section Rendering API: sections rendered with the cart as it is after the request's change.
    const sections = async (ids: string[]) => {
      const base = {
        shop: { name: DEMO_SHOP_NAME, permanent_domain: options.shop, currency: DEMO_CURRENCY },
        cart: carts.json(token),
        routes,
      };
      return Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await renderSection(id, base)] as const)));
    };
    if (req.method === "GET" && url.searchParams.has("sections"))
      return json(200, await sections(sectionIds(url.searchParams.get("sections"))));

    try {
      if (p === "/cart.js" && req.method === "GET") return json(200, carts.json(token));
      if (/^\/cart\/(add|change|clear)(\.js)?$/.test(p) && req.method === "POST") {
        const fields = parseFields(await readBody(req), req.headers["content-type"]);
        const ajax = p.endsWith(".js");
        let result: unknown;
        if (p.startsWith("/cart/add")) {
          const items = Array.isArray(fields.items) ? (fields.items as Record<string, unknown>[]) : [fields];
          const added = items.slice(0, 50).map((item) => carts.add(token, item.id, item.quantity));
          result = Array.isArray(fields.items) ? { items: added } : added[0];
        } else if (p.startsWith("/cart/change")) {
          carts.change(token, fields);
          result = carts.json(token);
        } else {
          carts.clear(token);
          result = carts.json(token);
        }
        const asked = sectionIds(fields.sections);
        if (ajax && asked.length > 0) result = { ...(result as object), sections: await sections(asked) };
        return ajax ? json(200, result) : send(res, 303, "", { location: "/cart", ...cartCookie });
      }
    } catch (error) {
      if (!(error instanceof CartError) && !(error instanceof SyntaxError)) throw error;
      const status = error instanceof CartError ? error.status : 400;
      return json(status, {
        status,
        message: "Cart error",
        description: error instanceof CartError ? error.description : "Malformed body",
      });
    }

    if (p === "/") return page("index", { page_title: null });
    const product = /^\/products\/([\w-]+)$/.exec(p);
    if (product) {
      const found = products.find((x) => x.handle === product[1]);
      return found ? page("product", { product: found, page_title: found.title }) : page("404", {}, 404);
    }
    if (p === "/cart") return page("cart", { page_title: "Cart" });
    if (p === "/account/login" && req.method === "POST") {
      const fields = parseFields(await readBody(req), req.headers["content-type"]);
      const customer = customers.find((c) => c.id === fields.customer_id);
      if (!customer) return page("login", { demo_customers: [], return_url: "/account" }, 400);
      return send(res, 303, "", {
        location: safeReturn(fields.return_url),
        "set-cookie": `customer_id=${customer.id}; Path=/; HttpOnly; SameSite=Lax`,
      });
    }
    if (p === "/account/login") {
      const list = customers.map((c) => ({ id: c.id, name: customerName(c), email: c.email }));
      return page("login", {
        demo_customers: list,
        return_url: safeReturn(url.searchParams.get("return_url")),
        page_title: "Log in",
      });
    }
    if (p === "/account/logout")
      return send(res, 303, "", { location: "/", "set-cookie": "customer_id=; Path=/; Max-Age=0" });
    if (p === "/account")
      return customerOf(req)
        ? page("account", { page_title: "Account" })
        : send(res, 303, "", { location: "/account/login" });
    return page("404", {}, 404);
  }

  async function appProxy(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    const customer = customerOf(req);
    const extra = Object.fromEntries(url.searchParams.entries());
    // Shopify sets these itself; a shopper's own copies never reach the app.
    for (const key of ["signature", "shop", "logged_in_customer_id", "path_prefix", "timestamp"]) delete extra[key];
    const target = new URL(
      proxyUrl(options.appUrl, url.pathname.slice(prefix.length) || "/", {
        shop: options.shop,
        secret: options.apiSecret,
        customerId: customer?.id ?? "",
        extra,
        prefix,
      }),
    );
    const body = req.method === "GET" || req.method === "HEAD" ? Buffer.alloc(0) : await readBody(req);
    // Like Shopify's proxy: no cookies to the app, the shopper's own headers otherwise.
    const headers: http.OutgoingHttpHeaders = { "content-length": String(body.length) };
    for (const name of ["content-type", "accept", "user-agent"])
      if (req.headers[name]) headers[name] = req.headers[name];
    const { token } = carts.open(cookies(req).cart);
    forward(req, res, target, headers, body, async (source) =>
      renderProxyLiquid(source, await globals(req, token, "page")),
    );
  }

  async function admin(req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
    if (url.pathname.startsWith("/admin/") && (await adminPage(req, res, url, options))) return;
    const token = await mintSessionToken(options.shop, {
      apiKey: options.apiKey,
      secret: options.apiSecret,
      lifetimeSeconds: 60,
    });
    const headers: http.OutgoingHttpHeaders = { ...req.headers, authorization: `Bearer ${token}` };
    forward(req, res, new URL(url.pathname + url.search, options.appUrl), headers);
  }

  return http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    if (url.pathname === "/favicon.ico") return void send(res, 204, "", { "content-type": "image/x-icon" }); // the store has none
    const handler =
      url.pathname.startsWith(`${prefix}/`) || url.pathname === prefix
        ? appProxy
        : STOREFRONT.test(url.pathname)
          ? storefront
          : admin;
    handler(req, res, url).catch((error: unknown) => {
      const status = error instanceof CartError ? error.status : error instanceof SyntaxError ? 400 : 500;
      if (!res.headersSent)
        send(res, status, status === 500 ? "The stand-in for Shopify failed on this request." : "Bad request", {
          "content-type": "text/plain",
        });
      else res.destroy();
      if (status === 500) console.error("stand-in error", error instanceof Error ? error.message : error);
    });
  });
}
