// The app proxy's storefront path. Shopify lets a merchant change the proxy's prefix and subpath for their store
// (Apps → app → App proxy), so the path is not always ours: every signed proxy request names it in `path_prefix`
// (signed with the rest of the query). Links and redirects the app sends to the store use that value, and only
// when it has exactly Shopify's shape: one of the four prefixes Shopify offers, then one plain subpath segment.
// Anything else (a second segment, "..", a scheme, "//host") could turn a link into one off the store: refused.

/** The path in shopify.app.toml ([app_proxy] prefix + subpath), the default the theme blocks start with. */
export const DEFAULT_PROXY_PREFIX = "/apps/workspace";

const PROXY_PREFIX = /^\/(apps|a|community|tools)\/[A-Za-z0-9_-]{1,64}$/;

/** The proxy path from Shopify's `path_prefix`, or null when it is missing or not of Shopify's shape. */
export function parseProxyPrefix(value: string | null | undefined): string | null {
  return typeof value === "string" && PROXY_PREFIX.test(value) ? value : null;
}
