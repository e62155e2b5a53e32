// A stand-in for the Shopify storefront in Playwright (tests and demo): requests to https://<shop>{prefix}/* are signed
// with the local app-proxy signer (proxyUrl) and forwarded to the app as Shopify would, and the Liquid the app
// answers is rendered with liquidjs inside the demo's theme (./liquid.ts). Other store pages (login, home) get
// small placeholder pages, so redirects back to the store can be asserted.
import type { BrowserContext, Page, Route } from "playwright-core";
import type { Catalog } from "../admin-api/catalog";
import { LOCAL_SHOP, PROXY_PREFIX, proxyUrl } from "../shopify/app-proxy";
import { renderProxyLiquid } from "./liquid";
import {
  ASSET_PREFIX,
  cartJson,
  extensionAsset,
  renderCartPage,
  type BlockSettings,
  type CartState,
} from "./cart-page";

/** A cart for /cart and /cart.js; the test or demo changes `state` as a shopper would. */
export interface StorefrontCart {
  state: CartState;
  catalog: Catalog;
  block?: BlockSettings;
  locale?: string;
}

export interface StorefrontOptions {
  appUrl: string;
  shop?: string;
  /** The logged-in customer, or null for an anonymous visitor. */
  customerId: string | null;
  customer?: { name: string; email: string };
  /** The store's app proxy path (prefix + subpath), default /apps/workspace; signed as Shopify's path_prefix and
   *  set as the Continue cart block's "App proxy path" setting, as a merchant who changed it would. */
  prefix?: string;
  /** Serves /cart (with the Continue cart block), /cart.js and the extension's assets. */
  cart?: StorefrontCart;
  /**
   * The theme's routes.account_login_url: "/account/login" on legacy customer accounts (the default); the current
   * customer accounts give a sign-in redirect with a query, e.g. "/customer_authentication/redirect?locale=en".
   */
  accountLoginUrl?: string;
}

/** The app's Liquid answer rendered as Shopify would: liquidjs, inside the demo's theme (./liquid.ts). */
export function renderLiquid(
  shop: string,
  body: string,
  customer: StorefrontOptions["customer"],
  accountLoginUrl = "/account/login",
): Promise<string> {
  return renderProxyLiquid(body, {
    shop: { name: shop, permanent_domain: shop },
    customer: customer ? { name: customer.name, email: customer.email } : null,
    routes: { root_url: "/", cart_url: "/cart", account_login_url: accountLoginUrl },
    cart: { item_count: 0, items: [], total_price: 0 },
  });
}

/** A tiny theme layout around a page's main content. */
export const layout = (shop: string, main: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${shop}</title></head><body><header><strong>${shop}</strong></header><main>${main}</main></body></html>`;

export async function routeStorefront(target: Page | BrowserContext, options: StorefrontOptions) {
  const shop = options.shop ?? LOCAL_SHOP;
  const prefix = options.prefix ?? PROXY_PREFIX;
  await target.route(`https://${shop}/**`, async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    if (url.pathname.startsWith(`${prefix}/`) || url.pathname === prefix) {
      const extra = Object.fromEntries(url.searchParams.entries());
      const signed = proxyUrl(options.appUrl, url.pathname.slice(prefix.length) || "/", {
        shop,
        customerId: options.customerId,
        extra,
        prefix,
      });
      const response = await route.fetch({
        url: signed,
        method: request.method(),
        headers: { ...request.headers(), host: new URL(options.appUrl).host },
        postData: request.postDataBuffer() ?? undefined,
        maxRedirects: 0,
      });
      const headers = response.headers();
      if (response.status() >= 300 && response.status() < 400) {
        const location = new URL(headers.location ?? "/", url);
        if (location.origin === url.origin) {
          // Chromium does not intercept the follow-up of a fulfilled redirect to the same (unresolvable) origin,
          // so the stand-in redirects from the page instead; the browser ends on the same URL.
          await route.fulfill({
            contentType: "text/html",
            body: `<!doctype html><script>location.replace(${JSON.stringify(location.toString())})</script>`,
          });
          return;
        }
        await route.fulfill({ status: response.status(), headers: { location: location.toString() } });
        return;
      }
      const body = await response.text();
      const liquid = (headers["content-type"] ?? "").includes("application/liquid");
      await route.fulfill({
        status: response.status(),
        contentType: "text/html; charset=utf-8",
        body: liquid ? await renderLiquid(shop, body, options.customer, options.accountLoginUrl) : body,
      });
      return;
    }
    if (
      options.cart &&
      (await serveCart(route, url, shop, { ...options.cart, block: { proxy_path: prefix, ...options.cart.block } }))
    )
      return;
    if (url.pathname === "/account/login" || url.pathname === "/customer_authentication/redirect") {
      await route.fulfill({
        contentType: "text/html",
        body: layout(
          shop,
          `<h1>Log in</h1><p data-page="login">return_url=${url.searchParams.get("return_url") ?? ""}</p>`,
        ),
      });
      return;
    }
    await route.fulfill({ contentType: "text/html", body: layout(shop, `<h1>Store home</h1>`) });
  });
}

async function serveCart(route: Route, url: URL, shop: string, cart: StorefrontCart): Promise<boolean> {
  if (url.pathname === "/cart") {
    const main = await renderCartPage(cart.state, cart.catalog, cart.block, cart.locale);
    await route.fulfill({ contentType: "text/html; charset=utf-8", body: layout(shop, main) });
    return true;
  }
  if (url.pathname === "/cart.js") {
    await route.fulfill({ contentType: "application/json", body: JSON.stringify(cartJson(cart.state, cart.catalog)) });
    return true;
  }
  if (url.pathname.startsWith(ASSET_PREFIX)) {
    const asset = extensionAsset(url.pathname.slice(ASSET_PREFIX.length));
    await route.fulfill(asset ? { contentType: asset.contentType, body: asset.body } : { status: 404, body: "" });
    return true;
  }
  return false;
}
