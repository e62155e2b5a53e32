// WCAG 2.2 AA in the app's UI extensions, as Shopify's surfaces show them: axe-core (test/helpers/axe.ts, every WCAG
// 2.0-2.2 A/AA rule) in headless Chromium over the stand-in hosts (test/helpers/extension-hosts.ts), which run the
// real bundles with the API and the Polaris components' roles Shopify gives each target, at 1280 px and 360 px, in
// every state the extensions render:
// - the profile block: loading, not connected, connected, needing a reconnect, a disconnect on its way, disconnected,
//   a disconnect that failed, unreachable, not available at the store;
// - the Connect workspace page: loading, ready to start, to renew, connected while it was open, every outcome of an
//   attempt the backend tells (one approved in another account included), unreachable, not available;
// - the order status block: sent (with shipments), waiting, failed, not sent, loading, unreachable, the
//   pre-authenticated page's sign-in prompt;
// - the admin order page block: imported, failed with Retry now and Mark as resolved, an action on its way, the
//   outcome banner after each action (and after one that failed), resolved, a customer with no workspace, sync
//   paused, unknown order, loading, the error with Try again.
import type { BrowserContext, Page } from "playwright-core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { saveSettings } from "~/connections/settings-store.server";
import { setSyncPaused } from "~/sync/status.server";
import { expectAccessible } from "../helpers/axe";
import { newContext } from "../helpers/browser";
import { emulatorSettings } from "../helpers/emulator-oauth";
import {
  apiViolations,
  extensionFrame,
  FULL_PAGE,
  holdRequests,
  ORDER_STATUS_BLOCK,
  PROFILE_BLOCK,
  withExtensionHosts,
} from "../helpers/extension-hosts";
import { TEST_SHOP } from "../helpers/shopify";

const ADA = { id: "9501", name: "Ada Lovelace", email: "ada@example.com" };
const GRACE = { id: "9502", name: "Grace Hopper", email: "grace@example.com" };
const KATHERINE = { id: "9503", name: "Katherine Johnson", email: "katherine@example.com" };
// Ada's orders, one per state the order status block tells apart.
const ORDERS = {
  sent: { id: "8501", shipments: ["imported", "pending"] },
  waiting: { id: "8502", shipments: [] },
  failed: { id: "8503", shipments: ["failed"] },
  not_sent: { id: "8504", shipments: [] },
} as const;
const ORDER_STATE = { sent: "imported", waiting: "waiting", failed: "failed", not_sent: "skipped" } as const;

const hosts = withExtensionHosts({
  customers: [ADA, GRACE, KATHERINE],
  orders: Object.values(ORDERS).map((o) => ({ id: o.id, name: `#${o.id}`, customerId: ADA.id })),
});
const { h } = hosts;
const WIDTHS = [1280, 360] as const;

const opened: BrowserContext[] = [];
afterEach(async () => {
  for (const context of opened.splice(0)) await context.close();
});

/**
 * Content that needs scrolling sideways to be read at this width (WCAG 1.4.10 Reflow, which axe does not check): the
 * page and each frame in it (an extension's) whose content is wider than the frame.
 */
async function overflowing(page: Page): Promise<string[]> {
  const wide: string[] = [];
  for (const frame of page.frames()) {
    const [content, shown] = await frame.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    if (content > shown)
      wide.push(`${frame === page.mainFrame() ? "the page" : frame.url()}: ${content} px in ${shown} px`);
  }
  return wide;
}

/**
 * axe over the whole page (the extension's frame included) at each width, nothing to scroll sideways; the host saw
 * no API misuse.
 */
async function check(page: Page, what: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(100); // the frame's height follows its content
    await expectAccessible(page, `${what} at ${width} px`);
    expect(await overflowing(page), `${what} at ${width} px: content wider than its frame`).toEqual([]);
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 800 });
  expect(await apiViolations(page)).toEqual([]);
}

async function signedIn(customerId: string, to?: string) {
  const { context, page } = await hosts.signedIn(customerId, to);
  opened.push(context);
  return { context, page };
}

const connection = () => `${h.app.url}/customer-account/connection`;

describe("the profile block and the Connect workspace page", () => {
  it("profile block: loading, not connected, unreachable", async () => {
    const { context, page } = await signedIn(ADA.id, "/");
    const held = await holdRequests(context, connection());
    await page.goto(`${hosts.accountUrl()}/profile`);
    const block = extensionFrame(page, PROFILE_BLOCK);
    await block.locator("[data-workspace-state=loading]").waitFor();
    await check(page, "profile block, loading");
    await held.release();
    await block.locator("[data-workspace-state=not_connected]").waitFor();
    await check(page, "profile block, not connected");

    await context.route(connection(), (route) =>
      route.request().method() === "GET" ? route.fulfill({ status: 500, body: "" }) : route.fallback(),
    );
    await page.reload();
    await block.locator("[data-workspace-state=unavailable]").waitFor();
    await check(page, "profile block, unreachable");
  }, 120_000);

  it("Connect workspace page: loading, ready, unreachable, and each result it can come back with", async () => {
    const { context, page } = await signedIn(ADA.id, "/");
    const held = await holdRequests(context, connection());
    await page.goto(`${hosts.accountUrl()}/pages/workspace-connect`);
    const connect = extensionFrame(page, FULL_PAGE);
    await connect.locator("[data-workspace-state=loading]").waitFor();
    await check(page, "Connect workspace page, loading");
    await held.release();
    await connect.locator("[data-workspace-state=ready]").waitFor();
    await check(page, "Connect workspace page, ready to start");

    // How the latest attempt ended, as the backend tells it (the page never reads its own address).
    for (const result of ["denied", "expired", "already_used", "invalid_state", "failed", "not_configured"]) {
      await h.db.prisma.oAuthState.create({
        data: {
          state: `axe-${result}-${Date.now()}`,
          shop: TEST_SHOP,
          customerId: ADA.id,
          codeVerifierEnc: "unused",
          redirectUri: `${h.app.url}/connect/callback`,
          expiresAt: new Date(Date.now() + 60_000),
          usedAt: new Date(),
          result,
          finishedAt: new Date(),
        },
      });
      await page.goto(`${hosts.accountUrl()}/pages/workspace-connect`);
      await connect.locator("[data-notice=critical]").waitFor();
      await connect.locator("[data-workspace-state=ready]").waitFor();
      await check(page, `Connect workspace page, told "${result}"`);
    }
    await h.db.prisma.oAuthState.deleteMany({ where: { customerId: ADA.id } });

    await context.route(connection(), (route) => route.fulfill({ status: 500, body: "" }));
    await page.goto(`${hosts.accountUrl()}/pages/workspace-connect`);
    await connect.locator("[data-workspace-state=unavailable]").waitFor();
    await check(page, "Connect workspace page, unreachable");
  }, 180_000);

  it("connected through the consent (in a new tab): the profile back connected, the page left open connected, a disconnect on its way, failed, done; a consent approved in another account told", async () => {
    const { context, page } = await signedIn(ADA.id, "/pages/workspace-connect");
    const connect = extensionFrame(page, FULL_PAGE);
    const [consent] = await Promise.all([
      context.waitForEvent("page"),
      connect.locator("[data-action=consent]").click(),
    ]);
    await consent.waitForURL(new RegExp(`^${h.emulator.url}/oauth/authorize`));
    await consent.check('input[name="workspace_id"][value="ws-acme"]');
    await consent.click('button[value="approve"]');
    await consent.waitForURL(`${hosts.accountUrl()}/profile`);
    await extensionFrame(consent, PROFILE_BLOCK).locator("[data-notice=success]").waitFor();
    await check(consent, "profile block, back connected");
    await consent.close();
    await connect.locator("[data-workspace-state=connected]").waitFor({ timeout: 15_000 });
    await connect.locator("[data-notice=success]").waitFor();
    await check(page, "Connect workspace page, connected while it was open");
    await page.goto(`${hosts.accountUrl()}/pages/workspace-connect`);
    await connect.locator("[data-workspace-state=connected]").waitFor();
    await check(page, "Connect workspace page, already connected");

    await page.goto(`${hosts.accountUrl()}/profile`);
    const block = extensionFrame(page, PROFILE_BLOCK);
    await block.locator("[data-workspace-state=connected]").waitFor();
    await check(page, "profile block, connected");

    // Disconnect fails (the app cannot be reached): the block says so and stays connected.
    const failing = (route: import("playwright-core").Route) =>
      route.request().method() === "POST" ? route.fulfill({ status: 502, body: "" }) : route.fallback();
    await context.route(connection(), failing);
    await block.getByRole("button", { name: "Disconnect" }).click();
    await block.locator("[data-notice=critical]").waitFor();
    await check(page, "profile block, a disconnect that failed");
    await context.unroute(connection(), failing);

    const held = await holdRequests(context, connection(), "POST");
    await block.getByRole("button", { name: "Disconnect" }).click();
    await block.locator("s-spinner").waitFor();
    await check(page, "profile block, a disconnect on its way");
    await held.release();
    await block.locator("[data-workspace-state=not_connected]").waitFor();
    await block.locator("[data-notice=info]").waitFor();
    await check(page, "profile block, disconnected");

    // Grace's consent link reaches Ada, who approves it signed in as herself: refused, nothing connected; Grace's
    // Connect page, left open, tells her why.
    const grace = await signedIn(GRACE.id, "/pages/workspace-connect");
    const graceConnect = extensionFrame(grace.page, FULL_PAGE);
    const link = graceConnect.getByRole("link", { name: "Continue to the workspace service" });
    const authorizationUrl = (await link.getAttribute("href"))!;
    await page.goto(authorizationUrl);
    await page.check('input[name="workspace_id"][value="ws-globex"]');
    await page.click('button[value="approve"]');
    await page.waitForURL(/\/apps\/workspace\/connect\?result=wrong_customer$/);
    await graceConnect.locator("[data-notice=critical]").waitFor({ timeout: 15_000 });
    expect(await graceConnect.locator("[data-notice]").textContent()).toContain(
      "approved while signed in to a different account",
    );
    await check(grace.page, "Connect workspace page, a consent approved in another account");
  }, 180_000);

  it("needing a reconnect (block and page), and a store where connections are not available", async () => {
    await h.db.prisma.customerGrant.create({
      data: {
        shop: TEST_SHOP,
        customerId: KATHERINE.id,
        workspaceId: "ws-initech",
        scopes: "orders:write shipments:write",
        accessTokenEnc: "unused",
        status: "needs_reconnect",
      },
    });
    const { page } = await signedIn(KATHERINE.id);
    await extensionFrame(page, PROFILE_BLOCK).locator("[data-workspace-state=needs_reconnect]").waitFor();
    await check(page, "profile block, needing a reconnect");
    await page.goto(`${hosts.accountUrl()}/pages/workspace-connect`);
    await extensionFrame(page, FULL_PAGE).locator("[data-workspace-state=ready]").waitFor();
    await check(page, "Connect workspace page, to renew");

    await h.db.prisma.shopSettings.delete({ where: { shop: TEST_SHOP } });
    try {
      const grace = (await signedIn(GRACE.id)).page;
      await extensionFrame(grace, PROFILE_BLOCK).locator("[data-workspace-state=not_configured]").waitFor();
      await check(grace, "profile block, not available at the store");
      await grace.goto(`${hosts.accountUrl()}/pages/workspace-connect`);
      await extensionFrame(grace, FULL_PAGE).locator("[data-workspace-state=not_configured]").waitFor();
      await check(grace, "Connect workspace page, not available at the store");
    } finally {
      expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(h.emulator.url))).ok).toBe(true);
    }
  }, 120_000);
});

describe("the order status block", () => {
  it("sent with its shipments, waiting, failed, not sent; loading, unreachable; the pre-authenticated page's sign-in prompt", async () => {
    for (const [delivery, order] of Object.entries(ORDERS)) {
      const state = ORDER_STATE[delivery as keyof typeof ORDERS];
      await h.db.prisma.syncRecord.create({
        data: { shop: TEST_SHOP, kind: "order", externalId: order.id, orderId: order.id, customerId: ADA.id, state },
      });
      for (const [i, shipment] of order.shipments.entries())
        await h.db.prisma.syncRecord.create({
          data: {
            shop: TEST_SHOP,
            kind: "shipment",
            externalId: `${order.id}0${i}`,
            orderId: order.id,
            state: shipment,
          },
        });
    }
    const { context, page } = await signedIn(ADA.id);
    const block = extensionFrame(page, ORDER_STATUS_BLOCK);
    for (const [delivery, order] of Object.entries(ORDERS)) {
      await page.goto(`${hosts.accountUrl()}/orders/${order.id}`);
      await block.locator(`[data-workspace-order=${delivery}]`).waitFor();
      await check(page, `order status block, ${delivery.replace("_", " ")}`);
    }

    const orderUrl = `${h.app.url}/customer-account/orders/${ORDERS.sent.id}`;
    const held = await holdRequests(context, orderUrl);
    await page.goto(`${hosts.accountUrl()}/orders/${ORDERS.sent.id}`);
    await block.locator("[data-workspace-order=loading]").waitFor();
    await check(page, "order status block, loading");
    await held.release();
    await context.route(orderUrl, (route) => route.fulfill({ status: 503, body: "" }));
    await page.reload();
    await block.locator("[data-workspace-order=unavailable]").waitFor();
    await check(page, "order status block, unreachable");

    const signedOut = await newContext(h.browser);
    opened.push(signedOut);
    const emailPage = await signedOut.newPage();
    await emailPage.goto(`${hosts.accountUrl()}/orders/${ORDERS.sent.id}?preauth=1`);
    await extensionFrame(emailPage, ORDER_STATUS_BLOCK).locator("[data-workspace-order=sign_in]").waitFor();
    await check(emailPage, "order status block, pre-authenticated: the sign-in prompt");
  }, 120_000);
});

describe("the order page block in the admin", () => {
  const ORDER = { imported: "8601", failed: "8602", noWorkspace: "8603", unknown: "8699" };
  const block = (page: Page) => page.frameLocator("#block");
  const api = /\/api\/order-block\?/;

  /** A record of the test shop's order, with a job when it failed (what Retry now sends again). */
  async function record(
    orderId: string,
    data: {
      kind?: string;
      externalId?: string;
      state: string;
      reason?: string;
      reasonCode?: "rejected" | "not_connected";
      workspaceId?: string;
    },
  ) {
    const row = await h.db.prisma.syncRecord.create({
      data: {
        shop: TEST_SHOP,
        kind: data.kind ?? "order",
        externalId: data.externalId ?? orderId,
        orderId,
        customerId: ADA.id,
        state: data.state,
        reason: data.reason,
        reasonCode: data.reasonCode,
        workspaceId: data.workspaceId,
        lastAttemptAt: new Date(),
        importedAt: data.state === "imported" ? new Date() : null,
      },
    });
    if (data.state === "failed")
      await h.db.prisma.job.create({
        data: { shop: TEST_SHOP, kind: row.kind, payload: {}, status: "failed", attempts: 12, recordId: row.id },
      });
    return row;
  }

  async function open(orderId: string, context?: BrowserContext): Promise<Page> {
    const own = context ?? (await newContext(h.browser));
    if (!context) opened.push(own);
    const page = await own.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(hosts.orderPageUrl(orderId));
    return page;
  }

  beforeAll(async () => {
    await record(ORDER.imported, { state: "imported", workspaceId: "ws-acme" });
    await record(ORDER.imported, { kind: "shipment", externalId: "86010", state: "imported", workspaceId: "ws-acme" });
    await record(ORDER.failed, {
      state: "failed",
      reason: "The service refused the order: lines[0].sku: unknown SKU.",
      reasonCode: "rejected",
    });
    await record(ORDER.failed, {
      kind: "shipment",
      externalId: "86020",
      state: "failed",
      reason: "The order was not imported, so its shipment cannot be.",
      reasonCode: "rejected",
    });
    await record(ORDER.noWorkspace, {
      state: "waiting",
      reason: "The customer has not connected a workspace.",
      reasonCode: "not_connected",
    });
  });

  it("imported, failed with Retry now and Mark as resolved, no workspace, sync paused, unknown order", async () => {
    const page = await open(ORDER.imported);
    await block(page).locator("s-badge", { hasText: "Imported" }).first().waitFor();
    await check(page, "order page block, imported");
    await page.goto(hosts.orderPageUrl(ORDER.failed));
    await block(page).getByRole("button", { name: "Retry now" }).first().waitFor();
    await check(page, "order page block, failed with Retry now and Mark as resolved");
    await page.goto(hosts.orderPageUrl(ORDER.noWorkspace));
    await block(page).getByText("no workspace connected").waitFor();
    await check(page, "order page block, a customer with no workspace");
    await page.goto(hosts.orderPageUrl(ORDER.unknown));
    await block(page).getByText("Nothing has been sent for this order yet.").waitFor();
    await check(page, "order page block, unknown order");

    await setSyncPaused(h.db.prisma, TEST_SHOP, true);
    try {
      await page.goto(hosts.orderPageUrl(ORDER.failed));
      await block(page).getByText("Sync is paused").waitFor();
      await check(page, "order page block, sync paused");
    } finally {
      await setSyncPaused(h.db.prisma, TEST_SHOP, false);
    }
  }, 120_000);

  it("Retry now and Mark as resolved: on their way, their outcome, one that failed; resolved", async () => {
    const context = await newContext(h.browser);
    opened.push(context);
    const page = await open(ORDER.failed, context);
    const frame = block(page);
    const order = frame.locator("s-stack[data-record]").first();

    const held = await holdRequests(context, api, "POST");
    await order.getByRole("button", { name: "Retry now" }).click();
    await frame.locator("s-spinner").waitFor();
    await check(page, "order page block, an action on its way");
    await held.release();
    await frame.locator("[data-outcome=success]").waitFor();
    await check(page, "order page block, after Retry now");

    await frame.locator("s-stack[data-record]").nth(1).getByRole("button", { name: "Mark as resolved" }).click();
    await frame.getByText("Marked as resolved.").first().waitFor();
    await frame.locator("[data-outcome=success]").waitFor();
    await check(page, "order page block, after Mark as resolved");

    await context.route(api, (route) =>
      route.request().method() === "POST" ? route.fulfill({ status: 500, body: "" }) : route.fallback(),
    );
    await frame.getByRole("button", { name: "Retry now" }).first().click();
    await frame.locator("[data-outcome=critical]").waitFor();
    await check(page, "order page block, an action that failed");
  }, 120_000);

  it("loading, and the error with Try again", async () => {
    const context = await newContext(h.browser);
    opened.push(context);
    const held = await holdRequests(context, api);
    const page = await open(ORDER.failed, context);
    await block(page).getByText("Loading the sync status").waitFor();
    await check(page, "order page block, loading");
    await held.release();
    await context.route(api, (route) => route.fulfill({ status: 500, body: "" }));
    await page.reload();
    await block(page).getByRole("button", { name: "Try again" }).waitFor();
    await check(page, "order page block, the error with Try again");
  }, 60_000);
});
