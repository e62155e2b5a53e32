// Runs in each extension's frame on the demo's customer account pages (bundled for the browser by ./server.ts):
// the `shopify` global and the `navigation` global exactly as Shopify's types give the frame's target
// (dev/ui-extensions/strict-api.ts, with the lists ./server.ts derived), in place of Chromium's own
// window.navigation, which must not reach an extension; Polaris web components with their roles; then the
// extension's bundle. Session tokens come from the stand-in's server (minted there with the app's secret).
import { createShopifyGlobal, signalOf } from "../ui-extensions/shopify-global";
import { strictGlobal, strictShopify, type TargetApiLists } from "../ui-extensions/strict-api";
import { definePolarisElements, watchUnknownComponents } from "../ui-extensions/polaris-elements";

interface FrameConfig {
  target: string;
  handle: string;
  bundle: string;
  locale: string;
  apiVersion: string;
  api: TargetApiLists;
  translations: Record<string, unknown>;
  rootPath: string;
  order: { id: string; name: string } | null;
  authenticationState: "fully_authenticated" | "pre_authenticated";
  currentEntry: "extension:/" | "extension:/route" | "extension://" | "https" | "https-query";
  externalLinks: "new-window" | "same-window";
}

const config = JSON.parse(document.getElementById("extension-config")!.textContent!) as FrameConfig;
const top = window.top!;
const violations: string[] = [];
const report = (message: string) => {
  violations.push(message);
  console.error(`[customer account stand-in] ${message}`);
  window.parent.postMessage({ apiViolation: message, target: config.target }, location.origin);
};
(window as unknown as { __apiViolations: string[] }).__apiViolations = violations;

/**
 * Shopify's protocols to the stand-in's pages: extension:<handle>/… (Shopify's code examples) and extension://<handle>
 * (the Navigation API page's prose), extension:/<route> for the extension's own routes, shopify:customer-account/…,
 * or https.
 */
function resolve(href: string): string | null {
  const extension = /^extension:(?:\/\/)?([a-z0-9-]*)\/?(.*)$/.exec(href);
  if (extension)
    return `${config.rootPath}/pages/${extension[1] || config.handle}${extension[2] ? `/${extension[2]}` : ""}`;
  if (href.startsWith("shopify:customer-account/"))
    return `${config.rootPath}/${href.slice("shopify:customer-account/".length)}`;
  return /^https?:\/\//.test(href) ? href : null;
}
// Polaris' target "auto" (the default) opens external links in a new window and Shopify's own in this one
// (shopify.dev/docs/apps/build/customer-accounts/migrate-to-web-components/link); "_blank" always a new one.
function navigate(href: string, target: string | null) {
  const url = resolve(href);
  if (!url) return report(`navigation to ${href}: not a URL or protocol Shopify's customer accounts follow`);
  const external = /^https?:\/\//.test(href);
  const auto = target === null || target === "auto";
  if (target === "_blank" || (external && auto && config.externalLinks === "new-window"))
    window.open(url, "_blank", "noopener");
  else top.location.assign(url);
}

// navigation.currentEntry.url as Shopify gives a full page: its own protocol, as in Shopify's example
// (extension:/, extension:/wishlists/123: Shopify/ui-extensions packages/ui-extensions/docs/surfaces/customer-account/
// reference/examples/navigation/use-current-entry.example.tsx); or the readings the docs leave open.
function currentEntryUrl(): string {
  switch (config.currentEntry) {
    case "extension:/":
      return "extension:/";
    case "extension:/route":
      return "extension:/connect";
    case "extension://":
      return "extension://";
    case "https":
      return `${top.location.origin}${top.location.pathname}`;
    case "https-query":
      return `${top.location.origin}${top.location.pathname}?${new URLSearchParams({ locale: config.locale })}`;
  }
}

const preauth = config.authenticationState === "pre_authenticated";
const implementation = createShopifyGlobal({
  target: config.target,
  locale: config.locale,
  apiVersion: config.apiVersion,
  translations: config.translations,
  sessionToken: async () => {
    const res = await fetch(`/session-token${preauth ? "?preauth=1" : ""}`, { method: "POST" });
    if (!res.ok) throw new Error("no session token");
    return res.text();
  },
  extra: {
    ...(config.order ? { order: signalOf(config.order) } : {}),
    authenticationState: signalOf(config.authenticationState),
    // Shopify's sign-in, then back to the page the shopper was on.
    requireLogin: async () =>
      top.location.assign(`${config.rootPath}/login?${new URLSearchParams({ return_url: top.location.pathname })}`),
  },
});
const navigationImplementation = {
  navigate: (url: string) => navigate(url, null),
  currentEntry: { key: "current", url: currentEntryUrl(), getState: () => undefined },
  updateCurrentEntry: () => undefined,
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
};
Object.defineProperty(window, "shopify", {
  configurable: true,
  value: strictShopify(config.api, implementation, report),
});
Object.defineProperty(window, "navigation", {
  configurable: true,
  value: strictGlobal(config.api, "navigation", navigationImplementation, report) ?? undefined,
});

definePolarisElements(window, { navigate });
watchUnknownComponents(window, report);

// The frame grows with the extension (a real host lays it out inline).
new ResizeObserver(() =>
  window.parent.postMessage({ frameHeight: document.documentElement.scrollHeight, target: config.target }, "*"),
).observe(document.body);

const mod = (await import(config.bundle)) as { default: () => Promise<void> };
await mod.default();
