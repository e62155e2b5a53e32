// Runs in the order details block's frame on the admin stand-in's order page (bundled for the browser by
// ./order-page.ts): the `shopify` global exactly as Shopify's types give admin.order-details.block.render
// (dev/ui-extensions/strict-api.ts, with the lists ./order-page.ts derived: data, auth, i18n, navigation, … and no
// toast), Chromium's own window.navigation out of reach, Polaris web components with their roles, then the block's
// bundle. Session tokens come from the stand-in's server (minted there with the app's secret).
import { translator } from "../ui-extensions/shopify-global";
import { strictShopify, type TargetApiLists } from "../ui-extensions/strict-api";
import { definePolarisElements, watchUnknownComponents } from "../ui-extensions/polaris-elements";

interface FrameConfig {
  api: TargetApiLists;
  orderId: string;
  bundle: string;
  messages: Record<string, unknown>;
}

const config = JSON.parse(document.getElementById("extension-config")!.textContent!) as FrameConfig;
const violations: string[] = [];
const report = (message: string) => {
  violations.push(message);
  console.error(`[admin stand-in] ${message}`);
  parent.postMessage({ apiViolation: message }, location.origin);
};
(window as unknown as { __apiViolations: string[] }).__apiViolations = violations;

// Links into the app (app:/…) open the app's page in the admin, as Shopify's admin does.
const navigate = (href: string) => {
  if (href.startsWith("app:")) parent.postMessage({ navigate: href.slice(4) }, location.origin);
  else report(`navigation to ${href}: not a URL the admin stand-in follows`);
};
const implementation = {
  extension: { target: config.api.target },
  data: { selected: [{ id: `gid://shopify/Order/${config.orderId}` }] },
  auth: { idToken: () => fetch("/admin/session-token", { method: "POST" }).then((r) => r.text()) },
  i18n: {
    translate: translator(config.messages),
    formatDate: (date: Date, options?: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat("en", options).format(date),
    formatNumber: (n: number | bigint, options?: Intl.NumberFormatOptions) =>
      new Intl.NumberFormat("en", options).format(n),
  },
  navigation: { navigate: (url: string | URL) => navigate(String(url)) },
};
Object.defineProperty(window, "shopify", {
  configurable: true,
  value: strictShopify(config.api, implementation, report),
});
// Admin extensions get their navigation on `shopify`; Chromium's own global is not theirs.
Object.defineProperty(window, "navigation", { configurable: true, value: undefined });

definePolarisElements(window, { navigate });
watchUnknownComponents(window, report);
new ResizeObserver(() =>
  parent.postMessage({ height: document.documentElement.scrollHeight }, location.origin),
).observe(document.body);

const mod = (await import(config.bundle)) as { default: () => Promise<void> };
await mod.default();
