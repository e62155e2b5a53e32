// The merchant's pages in a browser: one embedded page opened as Shopify's admin opens it (a session token on every
// request), the Admin API answers its setup guide reads, and the rows those pages show that the sync does not make
// itself (a cart handoff, a data request).
import type { PrismaClient } from "@prisma/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect } from "vitest";
import { customerAccountsHandlers } from "../../dev/admin-api/handlers";
import { themeHandlers } from "../../dev/admin-api/themes";
import { newContext } from "./browser";
import { embeddedUrl, mintSessionToken, TEST_SHOP } from "./shopify";

export interface OpenOptions {
  /** The window's width (height 900); default: the browser's own window. */
  width?: number;
  /** The admin's language, as Shopify adds it to the app's URL. */
  locale?: string;
  /** Wait until the network is idle (the page's own requests answered). */
  idle?: boolean;
}

/** Opens `path` of the app at `appUrl` as the test shop's staff; the page answers below 500. */
export async function openAdminPage(
  browser: Browser,
  appUrl: string,
  path: string,
  options: OpenOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, { Authorization: `Bearer ${await mintSessionToken()}` });
  const page = await context.newPage();
  if (options.width) await page.setViewportSize({ width: options.width, height: 900 });
  const url = new URL(await embeddedUrl(appUrl, path));
  if (options.locale) url.searchParams.set("locale", options.locale);
  const response = await page.goto(url.toString());
  expect(response?.status(), path).toBeLessThan(500);
  if (options.idle) await page.waitForLoadState("networkidle");
  return { context, page };
}

/**
 * Shopify's Admin API for the home page's setup guide, for the calling file: the theme's app embed off and legacy
 * customer accounts. Requests to anything else go out for real.
 */
export function serveSetupGuideShopify() {
  const shopify = setupServer(
    ...themeHandlers("disabled"),
    ...customerAccountsHandlers(TEST_SHOP, { version: "CLASSIC", url: `https://${TEST_SHOP}/account` }),
  );
  beforeAll(() => shopify.listen({ onUnhandledRequest: "bypass" }));
  afterAll(() => shopify.close());
  return shopify;
}

const CUSTOMER = "7000000001";

/** A Continue cart handoff of the test shop's first customer: three lines, 45.00 in `currency`. */
export function createHandoffRow(prisma: PrismaClient, currency: string) {
  return prisma.cartHandoff.create({
    data: {
      shop: TEST_SHOP,
      customerId: CUSTOMER,
      cartTokenHash: "h",
      contentHash: "c",
      externalCartId: "cart-77",
      idempotencyKey: "k",
      lineCount: 3,
      lines: [],
      state: "created",
      totalMinor: 4500n,
      currency,
    },
  });
}

/** A customer data request of the test shop's first customer for one order. */
export function createDataRequestRow(prisma: PrismaClient, orderId: number | string) {
  return prisma.dataRequest.create({
    data: {
      shop: TEST_SHOP,
      customerId: CUSTOMER,
      requestId: "dr-1",
      ordersRequested: [String(orderId)],
      export: { customer: { id: CUSTOMER } },
    },
  });
}
