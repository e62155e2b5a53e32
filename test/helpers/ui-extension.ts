// DOM tests of UI extensions: the bundles dev/ui-extensions/bundle.ts makes (the code a store would get, pointed at
// the app under test), rendered into a happy-dom window with a `shopify` global (dev/ui-extensions/shopify-global.ts)
// whose session tokens are minted with the app's secret, like Shopify's. As on the demo's host, the target gets
// exactly the `shopify` and `navigation` members Shopify's types give it (dev/ui-extensions/target-api.ts,
// strict-api.ts): anything else throws and is recorded in `violations`, and the Polaris components are defined with
// their roles (polaris-elements.ts). The extension's fetch is the window's, so the browser's CORS rules apply to its
// calls to the app.
//
// Why a window of its own rather than `@vitest-environment happy-dom`: the app under test runs in the test's process
// (test/helpers/app.ts), and that environment replaces Node's Response and Headers with happy-dom's, which the
// app's server then turns into HTTP answers without their CORS headers. So test files stay in the node environment
// and the bundle reads document, fetch, navigation and shopify from a sandbox object (BundleOptions.sandbox).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import path from "node:path";
import { Window } from "happy-dom";
import { ROOT } from "../../dev/build";
import { bundleUiExtensions, type BundledExtension } from "../../dev/ui-extensions/bundle";
import { createShopifyGlobal, signalOf } from "../../dev/ui-extensions/shopify-global";
import { definePolarisElements, watchUnknownComponents } from "../../dev/ui-extensions/polaris-elements";
import { strictGlobal, strictShopify } from "../../dev/ui-extensions/strict-api";
import { targetApi } from "../../dev/ui-extensions/target-api";
import { CHROME_USER_AGENT } from "./browser";

const SANDBOX = "__uiExtensionSandbox";

/** Bundles every UI extension for an app at `appUrl` into a fresh dir under build/ (Vite imports only inside the project). */
export async function bundleExtensionsFor(appUrl: string): Promise<BundledExtension[]> {
  const parent = path.join(ROOT, "build/ui-extension-tests");
  mkdirSync(parent, { recursive: true });
  return bundleUiExtensions(mkdtempSync(path.join(parent, "run-")), { appUrl, minify: false, sandbox: SANDBOX });
}

export function bundleOf(bundles: BundledExtension[], handle: string, target: string) {
  const ext = bundles.find((b) => b.handle === handle);
  const t = ext?.targets.find((x) => x.target === target);
  if (!ext || !t) throw new Error(`no bundle for ${handle} ${target}`);
  return { ext, file: t.file, target };
}

/** The extension's locale file, as Shopify picks it: <locale>.json, else en.default.json. */
export function translationsOf(dir: string, locale: string): Record<string, unknown> {
  const own = path.join(dir, "locales", `${locale}.json`);
  return JSON.parse(readFileSync(existsSync(own) ? own : path.join(dir, "locales", "en.default.json"), "utf8"));
}

export interface RenderOptions {
  sessionToken: () => Promise<string>;
  locale?: string;
  /** The page's URL, as the Navigation API reports it to full-page extensions. */
  url?: string;
  /** Target-specific API (order, data, …) merged into the `shopify` global. */
  extra?: Record<string, unknown>;
  /** The Order status page's authentication state (default: signed in). */
  authenticationState?: "fully_authenticated" | "pre_authenticated";
}

export interface Rendered {
  /** URLs the extension navigated to (navigation.navigate, or a link or button with an href). */
  navigated: string[];
  /** Uses of an API Shopify does not give the target (each also threw where it happened). */
  violations: string[];
  /** Times the extension asked Shopify to sign the shopper in (requireLogin). */
  loginRequests: number[];
  body: HTMLElement;
  text(): string;
  query(selector: string): HTMLElement | null;
  close(): Promise<void>;
}

let copies = 0;

export async function renderExtension(
  bundle: { ext: BundledExtension; file: string; target: string },
  options: RenderOptions,
): Promise<Rendered> {
  const locale = options.locale ?? "en";
  // A full page's navigation.currentEntry.url in Shopify's own protocol (its example: dev/README.md, fidelity table).
  const url = options.url ?? "extension:/";
  const navigated: string[] = [];
  const violations: string[] = [];
  const loginRequests: number[] = [];
  const report = (message: string) => void violations.push(message);
  const api = targetApi(bundle.target, bundle.ext.apiVersion);
  // The extension's own origin (Shopify runs it on its CDN's); plain http, as the app under test is (an https page
  // would have its calls to http refused as mixed content).
  const window = new Window({
    url: "http://extensions.localhost/",
    settings: { navigator: { userAgent: CHROME_USER_AGENT } },
  });
  const implementation = createShopifyGlobal({
    sessionToken: options.sessionToken,
    translations: translationsOf(bundle.ext.dir, locale === "en" ? "en.default" : locale),
    locale,
    target: bundle.target,
    apiVersion: bundle.ext.apiVersion,
    extra: {
      // The Order status page's sign-in state (Shopify's authenticationState) and its sign-in prompt.
      authenticationState: signalOf(options.authenticationState ?? "fully_authenticated"),
      requireLogin: async () => void loginRequests.push(Date.now()),
      ...options.extra,
    },
  });
  const shopify = strictShopify(api, implementation, report);
  // Customer account extensions have `navigation` as a global (Shopify's Navigation API).
  const navigation = strictGlobal(
    api,
    "navigation",
    {
      currentEntry: { key: "current", url, getState: () => undefined },
      navigate: (to: string) => void navigated.push(to),
      updateCurrentEntry: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    },
    report,
  );
  const win = window as unknown as globalThis.Window & typeof globalThis;
  definePolarisElements(win, { navigate: (href) => void navigated.push(href) });
  watchUnknownComponents(win, report);
  (globalThis as Record<string, unknown>)[SANDBOX] = {
    document: window.document,
    window,
    self: window,
    fetch: window.fetch.bind(window),
    navigation: navigation ?? undefined,
    shopify,
    location: window.location,
    navigator: window.navigator,
    process: undefined, // no `process` in an extension's runtime: only what the build put in
    // The page's own timers: closing the page (`close`) cancels them, as leaving a page does.
    setTimeout: window.setTimeout.bind(window),
    clearTimeout: window.clearTimeout.bind(window),
    setInterval: window.setInterval.bind(window),
    clearInterval: window.clearInterval.bind(window),
  };
  // A copy per render: each gets its own module instance (Preact, hooks), like a fresh page.
  copies += 1;
  const copy = bundle.file.replace(/\.js$/, `.copy-${copies}.js`);
  copyFileSync(bundle.file, copy);
  const mod = (await import(/* @vite-ignore */ copy)) as { default: () => Promise<void> };
  await mod.default();
  const body = window.document.body as unknown as HTMLElement;
  return {
    navigated,
    violations,
    loginRequests,
    body,
    text: () => body.textContent ?? "",
    query: (s) => body.querySelector(s),
    close: () => window.happyDOM.close(),
  };
}

/** Waits until `check` returns something truthy (the extension fetches over real HTTP). */
export async function waitFor<T>(check: () => T, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
