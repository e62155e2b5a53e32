// The stand-in hosts of the app's UI extensions in front of the test app, for tests that drive them in Chromium:
// the customer account pages (dev/customer-account: the profile block, the Connect workspace page, the order status
// block) and Shopify's order page in the admin (dev/admin/order-page.ts, through the storefront stand-in that routes
// /admin/*: the order details block). The real bundles, pointed at the app; the service settings at the OAuth
// emulator; the Admin API's CustomerAccounts answered by MSW (listening before the app starts: Shopify's library
// keeps the fetch it finds when the build loads). Call it at the top of a test file.
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setupServer } from "msw/node";
import type { BrowserContext, Frame, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { saveSettings } from "~/connections/settings-store.server";
import { customerAccountsHandlers } from "../../dev/admin-api/handlers";
import {
  createCustomerAccountPages,
  type AccountCustomer,
  type CustomerAccountPages,
} from "../../dev/customer-account/server";
import { createStandIn } from "../../dev/storefront/server";
import { newContext } from "./browser";
import { emulatorSettings } from "./emulator-oauth";
import { withHarness } from "./harness";
import { TEST_API_KEY, TEST_API_SECRET, TEST_SHOP } from "./shopify";

export const PROFILE_BLOCK = "customer-account.profile.block.render";
export const ORDER_STATUS_BLOCK = "customer-account.order-status.block.render";
export const FULL_PAGE = "customer-account.page.render";

const listen = async (server: http.Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const close = (server: http.Server | undefined) =>
  new Promise<void>((resolve) => (server ? (server.close(() => resolve()), server.closeAllConnections()) : resolve()));

export function withExtensionHosts(options: {
  customers: AccountCustomer[];
  orders: { id: string; name: string; customerId: string }[];
}) {
  // Shopify's Admin API (MSW): the store's customer accounts, rooted where the account pages listen once started.
  const accounts = { version: "NEW_CUSTOMER_ACCOUNTS" as const, url: "" };
  const shopify = setupServer(...customerAccountsHandlers(TEST_SHOP, accounts));
  beforeAll(() => shopify.listen({ onUnhandledRequest: "bypass" }));
  const h = withHarness({ app: {}, emulator: "oauth", browser: true });
  let account: http.Server | undefined;
  let behaviour: CustomerAccountPages["behaviour"] | undefined;
  let admin: http.Server | undefined;
  let adminUrl = "";

  beforeAll(async () => {
    expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(h.emulator.url))).ok).toBe(true);
    const keys = { shop: TEST_SHOP, apiKey: TEST_API_KEY, apiSecret: TEST_API_SECRET };
    // Every UI extension is bundled once, here: the admin block's bundle among them (it reads no APP_URL).
    const uiExtensionsDir = mkdtempSync(path.join(os.tmpdir(), "ui-extensions-"));
    ({ server: account, behaviour } = await createCustomerAccountPages({
      ...keys,
      appUrl: h.app.url,
      shopName: "Test shop",
      customers: options.customers,
      orders: options.orders,
      outDir: uiExtensionsDir,
    }));
    accounts.url = `${await listen(account)}/account`;
    // The admin block calls the app by relative URLs: the stand-in forwards them with a fresh session token.
    // The same server is the storefront (Shopify's app proxy), where the same customers sign in.
    const customers = options.customers.map((c) => {
      const [firstName, ...rest] = c.name.split(" ");
      return { id: c.id, firstName, lastName: rest.join(" "), email: c.email };
    });
    admin = createStandIn({ ...keys, appUrl: h.app.url, uiExtensionsDir, customers });
    adminUrl = await listen(admin);
  }, 240_000);

  afterAll(async () => {
    shopify.close();
    await close(account);
    await close(admin);
  });

  return {
    h,
    /** The account pages' root (<root>/profile, <root>/orders/<id>, <root>/pages/<handle>). */
    accountUrl: () => accounts.url,
    /** What the account pages give extensions (navigation.currentEntry's form, external links' window), switchable. */
    behaviour: () => behaviour!,
    /** The storefront stand-in (the same server as the admin's): Shopify's app proxy at <it>/apps/workspace/*. */
    storefrontUrl: () => adminUrl,
    /** Shopify's order page in the admin stand-in, with the app's block in the frame #block. */
    orderPageUrl: (orderId: string) => `${adminUrl}/admin/orders/${orderId}`,
    /** A browser signed in to the account pages as `customerId`, at `path` (under the root). */
    async signedIn(
      customerId: string,
      to = "/profile",
      width = 1280,
    ): Promise<{ context: BrowserContext; page: Page }> {
      const context = await newContext(h.browser);
      // The store's own domain (https://<shop>/…, where the app sends shoppers to its proxy pages) is the storefront
      // stand-in here: Chromium cannot resolve the shop's name, and does not always route a redirect's follow-up to
      // it, so the consent's answer is followed here (the service's redirect to the app's callback, and the
      // callback's redirect) and a redirect to the shop's domain goes to the stand-in instead.
      const toStandIn = (location: string) =>
        location.startsWith(`https://${TEST_SHOP}/`)
          ? `${adminUrl}${location.slice(`https://${TEST_SHOP}`.length)}`
          : location;
      await context.route(`https://${TEST_SHOP}/**`, (route) =>
        route.fulfill({ status: 302, headers: { location: toStandIn(route.request().url()) } }),
      );
      await context.route(`${h.emulator.url}/oauth/authorize`, async (route) => {
        if (route.request().method() !== "POST") return route.continue();
        const consent = await route.fetch({ maxRedirects: 0 });
        const callback = consent.headers().location;
        if (!callback) return route.fulfill({ response: consent });
        const back = await route.fetch({ url: callback, method: "GET", postData: undefined, maxRedirects: 0 });
        const location = back.headers().location;
        if (!location) return route.fulfill({ response: back }); // the callback's own answer (an error page)
        await route.fulfill({ status: 302, headers: { location: toStandIn(location) } });
      });
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 800 });
      await page.goto(
        `${accounts.url}/login?${new URLSearchParams({ customer: customerId, return_url: `/account${to}` })}`,
      );
      return { context, page };
    },
  };
}

/** The frame a customer account page runs `target` in. */
export const extensionFrame = (page: Page, target: string): FrameLocator =>
  page.frameLocator(`iframe[data-target="${target}"]`);

/** The same frame as a Frame (for axe and keyboard checks inside it). */
export async function frameOf(page: Page, selector: string): Promise<Frame> {
  const frame = await (await page.locator(selector).elementHandle())?.contentFrame();
  if (!frame) throw new Error(`no frame ${selector}`);
  return frame;
}

/** What the extensions used of an API Shopify does not give their target (the hosts record each use). */
export const apiViolations = (page: Page) =>
  page.evaluate(() => (window as unknown as { __apiViolations: string[] }).__apiViolations);

/**
 * Holds the requests matching `url` and `method` (a CORS preflight passes) until `release()`: a state that shows
 * while an answer is on its way (loading, a button busy) stays on screen to be checked.
 */
export async function holdRequests(context: BrowserContext, url: string | RegExp, method = "GET") {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const handler = async (route: import("playwright-core").Route) => {
    if (route.request().method() !== method) return route.fallback();
    await released;
    await route.fallback();
  };
  await context.route(url, handler);
  return {
    async release() {
      release();
      await context.unroute(url, handler);
    },
  };
}
