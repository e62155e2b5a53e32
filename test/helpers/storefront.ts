// A stand-in for the Shopify storefront in Playwright: requests to https://<shop>/apps/workspace/* are signed
// with the local app-proxy signer (proxyUrl) and forwarded to the app as Shopify would, and the Liquid the app
// answers is rendered with liquidjs inside the stand-in theme (dev/storefront, as in the demo). Other store pages
// (login, home) get small placeholder pages, so redirects back to the store can be asserted.
import type { BrowserContext, Page, Route } from "playwright-core";
import { renderProxyLiquid } from "../../dev/storefront/liquid";
import { proxyUrl, TEST_SHOP } from "./shopify";

export interface StorefrontOptions {
  appUrl: string;
  shop?: string;
  /** The logged-in customer, or null for an anonymous visitor. */
  customerId: string | null;
  customer?: { name: string; email: string };
  /** Path prefix of the app proxy. */
  prefix?: string;
}

/** The app's Liquid answer rendered as Shopify would, inside the stand-in theme (dev/storefront, shared with the demo). */
function renderLiquid(shop: string, body: string, customer: StorefrontOptions["customer"]) {
  return renderProxyLiquid(body, {
    shop: { name: shop, permanent_domain: shop },
    customer: customer ? { name: customer.name, email: customer.email } : null,
    routes: { root_url: "/", cart_url: "/cart", account_login_url: "/account/login" },
    cart: { item_count: 0, items: [], total_price: 0 },
  });
}

/** A page of the store that the app does not serve (login, home), inside the same theme. */
const storePage = (shop: string, main: string) => renderLiquid(shop, main.replace(/[{}%]/g, (c) => `&#${c.charCodeAt(0)};`), undefined);

export async function routeStorefront(target: Page | BrowserContext, options: StorefrontOptions) {
  const shop = options.shop ?? TEST_SHOP;
  const prefix = options.prefix ?? "/apps/workspace";
  await target.route(`https://${shop}/**`, async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    if (url.pathname.startsWith(`${prefix}/`) || url.pathname === prefix) {
      const extra = Object.fromEntries(url.searchParams.entries());
      const signed = proxyUrl(options.appUrl, url.pathname.slice(prefix.length) || "/", {
        shop,
        customerId: options.customerId,
        extra,
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
        body: liquid ? await renderLiquid(shop, body, options.customer) : body,
      });
      return;
    }
    if (url.pathname === "/account/login") {
      await route.fulfill({ contentType: "text/html", body: await storePage(shop, `<h1>Log in</h1><p data-page="login">return_url=${url.searchParams.get("return_url") ?? ""}</p>`) });
      return;
    }
    await route.fulfill({ contentType: "text/html", body: await storePage(shop, `<h1>Store home</h1>`) });
  });
}
