// Shopify's app proxy: a storefront request to /apps/workspace/* (or the path the merchant changed it to, sent as
// path_prefix) reaches the app at /proxy/* with the shop, the logged-in customer and a timestamp added to the
// query, signed with the app's API secret. Shared by the tests, the demo and the bench.
import { createHmac } from "node:crypto";

export const PROXY_PREFIX = "/apps/workspace";

/** The local app's credentials and shop (the tests' stand-in for a real Shopify app; the demo passes its own). */
export const LOCAL_API_KEY = "test-api-key";
export const LOCAL_API_SECRET = "test-api-secret";
export const LOCAL_SHOP = "test-shop.myshopify.com";

/**
 * Signs an app proxy query the way Shopify does: the parameters sorted, `key=value` concatenated with nothing
 * between them, hex HMAC-SHA256 with the API secret.
 */
export function signProxyQuery(params: Record<string, string | string[]>, secret = LOCAL_API_SECRET): URLSearchParams {
  const message = Object.keys(params)
    .sort()
    .map((key) => `${key}=${[params[key]].flat().join(",")}`)
    .join("");
  const signature = createHmac("sha256", secret).update(message).digest("hex");
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const v of [value].flat()) query.append(key, v);
  query.append("signature", signature);
  return query;
}

export interface ProxyUrlOptions {
  /** Default LOCAL_SHOP. */
  shop?: string;
  /** Default LOCAL_API_SECRET. */
  secret?: string;
  /** Shopify's logged_in_customer_id; null or "" for an anonymous visitor. */
  customerId?: string | null;
  /** The storefront request's own query parameters (Shopify passes them through, signed with the rest); tests
   *  also override Shopify's own ones here (an old timestamp). */
  extra?: Record<string, string | string[]>;
  /** The store's proxy path, Shopify's path_prefix (default PROXY_PREFIX). */
  prefix?: string;
}

/** The app's URL for a storefront request through the proxy: `{appUrl}/proxy{path}` with Shopify's signed query. */
export function proxyUrl(appUrl: string, path: string, options: ProxyUrlOptions = {}): string {
  const params: Record<string, string | string[]> = {
    shop: options.shop ?? LOCAL_SHOP,
    logged_in_customer_id: options.customerId ?? "",
    path_prefix: options.prefix ?? PROXY_PREFIX,
    timestamp: String(Math.floor(Date.now() / 1000)),
    ...options.extra,
  };
  const url = new URL(`/proxy${path}`, appUrl);
  url.search = signProxyQuery(params, options.secret).toString();
  return url.toString();
}
