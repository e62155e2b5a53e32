// Every proxy.* route starts here. Shopify's library checks the signature; the signature alone does not make the
// query unambiguous: Shopify signs a repeated parameter as its values joined by commas, while a reader takes one of
// them. A shopper who adds `logged_in_customer_id=<someone else>` to a storefront URL would get a signed query in
// which the first value is theirs to choose. So a query with any parameter named twice is refused (400, like a bad
// signature), and the identity comes only from the parameters Shopify sets. Shopify's `path_prefix` (the store's
// proxy path, which the merchant may have changed) must have Shopify's shape too (parseProxyPrefix, below), or the
// request is refused the same way: links and redirects back to the store are built from it.
import type { AppProxyContext } from "@shopify/shopify-app-remix/server";
import { securityLog } from "../lib/security-log.server";

/** Shopify's signature check: `authenticate.public.appProxy` of app/shopify.server.ts, handed in by the route. */
export type AppProxyCheck = (request: Request) => Promise<Pick<AppProxyContext, "liquid">>;

export interface ProxyRequest {
  /** Shopify's helper that answers as Liquid, rendered inside the store's theme. */
  liquid: AppProxyContext["liquid"];
  url: URL;
  shop: string;
  /** The logged-in customer's numeric id, or null for an anonymous shopper. */
  customerId: string | null;
  /** The store's proxy path from the signed `path_prefix`, e.g. "/apps/workspace" (checked: parseProxyPrefix). */
  prefix: string;
}

const refuse = (route: string, facts: Record<string, unknown>) => {
  securityLog().warn({ route, ...facts }, "app proxy request refused");
  return new Response(null, { status: 400, statusText: "Bad Request" });
};

export async function verifyAppProxy(request: Request, appProxy: AppProxyCheck): Promise<ProxyRequest> {
  const { liquid } = await appProxy(request); // throws 400 unless Shopify signed it
  const url = new URL(request.url);
  const names = [...url.searchParams.keys()];
  const repeated = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))];
  if (repeated.length > 0)
    throw refuse(url.pathname, { reason: "repeated_parameter", parameters: repeated.slice(0, 5) });
  const prefix = parseProxyPrefix(url.searchParams.get("path_prefix"));
  if (!prefix)
    throw refuse(url.pathname, {
      reason: "bad_path_prefix",
      pathPrefix: String(url.searchParams.get("path_prefix")).slice(0, 100),
    });
  const customerId = url.searchParams.get("logged_in_customer_id") ?? "";
  return {
    liquid,
    url,
    shop: url.searchParams.get("shop")!,
    customerId: /^\d+$/.test(customerId) ? customerId : null,
    prefix,
  };
}

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
