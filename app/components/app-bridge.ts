// App Bridge when it is really there (inside the Shopify admin); null in tests, the demo, or when Shopify's CDN
// script did not load. Pages fall back to plain links and Polaris banners then.
interface AppBridgeLike {
  toast?: { show(message: string, options?: { isError?: boolean; duration?: number }): unknown };
}

export function appBridge(): AppBridgeLike | null {
  if (typeof window === "undefined") return null;
  const candidate = (window as unknown as { shopify?: AppBridgeLike }).shopify;
  return candidate && typeof candidate.toast?.show === "function" ? candidate : null;
}
