// Headless Debian Chromium driven by playwright-core (Playwright's own browser downloads cannot work offline).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Without these, Chromium tries Google's hosts at every start and this closed network refuses them.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// Shopify's library answers 410 to bots; a headless user agent counts as one.
export const CHROME_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

export function newContext(browser: Browser, extraHTTPHeaders?: Record<string, string>): Promise<BrowserContext> {
  return browser.newContext({ userAgent: CHROME_USER_AGENT, extraHTTPHeaders });
}

/** Where screenshots go: test-results/<name>.png. */
export function screenshotPath(name: string) {
  const dir = path.resolve("test-results");
  mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}
