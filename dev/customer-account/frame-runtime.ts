// Runs in each block's frame on the demo's customer account pages (bundled for the browser by ./server.ts): the
// `shopify` global Shopify's runtime would give the extension (dev/ui-extensions/shopify-global.ts), with session
// tokens from the stand-in's server (minted there with the app's secret: the secret never reaches the page), the
// Navigation API answering with the account page's URL and navigating the whole page, then the extension's bundle.
import { createShopifyGlobal, signalOf } from "../ui-extensions/shopify-global";

interface FrameConfig {
  target: string;
  bundle: string;
  locale: string;
  apiVersion: string;
  translations: Record<string, unknown>;
  order: { id: string; name: string } | null;
}

const config = JSON.parse(document.getElementById("extension-config")!.textContent!) as FrameConfig;
const w = window as unknown as Record<string, unknown>;
w.shopify = createShopifyGlobal({
  target: config.target,
  locale: config.locale,
  apiVersion: config.apiVersion,
  translations: config.translations,
  sessionToken: async () => {
    const res = await fetch("/session-token", { method: "POST" });
    if (!res.ok) throw new Error("no session token");
    return res.text();
  },
  extra: config.order ? { order: signalOf(config.order) } : {},
});
// The page the shopper sees is the frame's parent: its URL is what Shopify's navigation reports, and navigating
// (to the service's consent page) leaves the whole page, as it does on Shopify.
Object.defineProperty(window, "navigation", {
  configurable: true,
  value: { currentEntry: { url: window.parent.location.href }, navigate: (url: string) => window.top!.location.assign(url) },
});

// The frame grows with the block (a real host lays blocks out inline).
new ResizeObserver(() => window.parent.postMessage({ frameHeight: document.documentElement.scrollHeight, target: config.target }, "*")).observe(document.body);

const mod = (await import(config.bundle)) as { default: () => Promise<void> };
await mod.default();
