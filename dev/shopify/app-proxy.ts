// The local app-proxy signer: what Shopify does to a storefront request under /apps/<subpath>/* before it reaches
// the app. Shared by the tests, the demo and the bench.
import { createHmac } from "node:crypto";

/** The local app's credentials and shop (the tests' and the demo's stand-in for a real Shopify app). */
export const LOCAL_API_KEY = "test-api-key";
export const LOCAL_API_SECRET = "test-api-secret";
export const LOCAL_SHOP = "test-shop.myshopify.com";

/**
 * Signs an app proxy query the way Shopify does: the parameters sorted, `key=value` (repeated keys joined by
 * commas) concatenated with nothing between them, hex HMAC-SHA256 with the API secret.
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

/** A storefront request through the app proxy: the path under /proxy plus Shopify's signed parameters. */
export function proxyUrl(
  appUrl: string,
  path: string,
  options: { shop?: string; customerId?: string | null; extra?: Record<string, string | string[]>; secret?: string } = {},
) {
  const params: Record<string, string | string[]> = {
    shop: options.shop ?? LOCAL_SHOP,
    logged_in_customer_id: options.customerId ?? "",
    path_prefix: "/apps/workspace",
    timestamp: String(Math.floor(Date.now() / 1000)),
    ...options.extra,
  };
  const url = new URL(`/proxy${path}`, appUrl);
  url.search = signProxyQuery(params, options.secret).toString();
  return url.toString();
}
