// The customer account extensions in Chromium, on the stand-in that holds them to Shopify's rules
// (dev/customer-account): blocks get no navigation.currentEntry (Chromium's own window.navigation included), full
// pages get their URL, Polaris components have their roles. A shopper connects from the profile block through the
// Connect workspace page and the emulator's consent and is connected; another signed-in customer coming back with
// that link connects nothing; the pre-authenticated Order status page asks to sign in, never shows an error.
import type http from "node:http";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { createCustomerAccountPages } from "../../dev/customer-account/server";
import { launchBrowser, newContext } from "../helpers/browser";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { dataPath } from "../helpers/route-data";
import { mintSessionToken, TEST_API_KEY, TEST_API_SECRET, TEST_SHOP } from "../helpers/shopify";
import { CHROME_USER_AGENT } from "../helpers/browser";

const ADA = { id: "9401", name: "Ada Lovelace", email: "ada@example.com" };
const GRACE = { id: "9402", name: "Grace Hopper", email: "grace@example.com" };
const ORDER = { id: "7401", name: "#7401", customerId: ADA.id };
let accountUrl = "";

const shopify = setupServer(
  graphql.link(`https://${TEST_SHOP}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`).query("CustomerAccounts", () =>
    HttpResponse.json({
      data: { shop: { customerAccountsV2: { customerAccountsVersion: "NEW_CUSTOMER_ACCOUNTS", url: accountUrl } } },
    }),
  ),
);
beforeAll(() => shopify.listen({ onUnhandledRequest: "bypass" }));
afterAll(() => shopify.close());

const h = withHarness({ app: {}, emulator: "oauth" });
let server: http.Server;
let browser: Browser;

beforeAll(async () => {
  const s = emulatorSettings(h.emulator.url);
  const saved = await fetch(new URL(dataPath("/app/settings", "routes/app.settings"), h.app.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${await mintSessionToken(TEST_SHOP)}`, "User-Agent": CHROME_USER_AGENT },
    body: new URLSearchParams({ intent: "save", ...s, environment: s.environment }),
  });
  expect(saved.status).toBe(200);
  await h.db.prisma.syncRecord.create({
    data: {
      shop: TEST_SHOP,
      kind: "order",
      externalId: ORDER.id,
      orderId: ORDER.id,
      customerId: ADA.id,
      state: "imported",
    },
  });
  ({ server } = await createCustomerAccountPages({
    appUrl: h.app.url,
    shop: TEST_SHOP,
    shopName: "Test shop",
    apiKey: TEST_API_KEY,
    apiSecret: TEST_API_SECRET,
    customers: [ADA, GRACE],
    orders: [ORDER],
    outDir: mkdtempSync(path.join(os.tmpdir(), "account-host-")),
  }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  accountUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/account`;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A browser signed in to the account pages as `customer`. */
async function signedIn(customer: { id: string }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`${accountUrl}/login?customer=${customer.id}&return_url=${encodeURIComponent("/account/profile")}`);
  return { context, page };
}

const frameOf = (page: Page, target: string) => page.frameLocator(`iframe[data-target="${target}"]`);
const violations = (page: Page) =>
  page.evaluate(() => (window as unknown as { __apiViolations: string[] }).__apiViolations);
const frame = async (page: Page, target: string): Promise<Frame> =>
  (await page.locator(`iframe[data-target="${target}"]`).elementHandle())!.contentFrame() as Promise<Frame>;

describe("customer account extensions on a host with Shopify's rules", () => {
  it("a block gets no navigation.currentEntry, not even Chromium's own; a full page gets its URL", async () => {
    const { context, page } = await signedIn(ADA);
    const profile = frameOf(page, "customer-account.profile.block.render");
    await profile.locator("[data-workspace-state=not_connected]").waitFor();
    const block = await frame(page, "customer-account.profile.block.render");
    expect(
      await block.evaluate(
        () => typeof (window as unknown as { navigation: { navigate: unknown } }).navigation.navigate,
      ),
    ).toBe("function");
    const read = () =>
      block.evaluate(() => {
        try {
          return String((window as unknown as { navigation: { currentEntry: unknown } }).navigation.currentEntry);
        } catch (error) {
          return `refused: ${(error as Error).message}`;
        }
      });
    expect(await read()).toBe(
      "refused: navigation.currentEntry is not part of the API Shopify gives customer-account.profile.block.render",
    );
    // Nothing beyond the target's API: the order status block's `order` is not the profile block's.
    expect(await block.evaluate(() => "order" in (window as unknown as { shopify: object }).shopify)).toBe(false);
    expect(await violations(page)).toEqual([expect.stringContaining("navigation.currentEntry")]);
    await expect(page.locator("[data-api-violations]").textContent()).resolves.toContain("navigation.currentEntry");

    await page.goto(`${accountUrl}/pages/workspace-connect?x=1`);
    const full = await frame(page, "customer-account.page.render");
    await frameOf(page, "customer-account.page.render").locator("[data-workspace-state=ready]").waitFor();
    expect(
      await full.evaluate(
        () => (window as unknown as { navigation: { currentEntry: { url: string } } }).navigation.currentEntry.url,
      ),
    ).toBe(`${accountUrl}/pages/workspace-connect?x=1`);
    expect(await violations(page)).toEqual([]);
    await context.close();
  });

  it("Connect from the profile: the Connect workspace page, consent at the service, back on the page: connected", async () => {
    const { context, page } = await signedIn(ADA);
    const profile = frameOf(page, "customer-account.profile.block.render");
    // Polaris components with their roles: the block's Connect is a link (it has an href), Disconnect a button.
    await profile.getByRole("link", { name: "Connect workspace" }).click();
    await page.waitForURL(`${accountUrl}/pages/workspace-connect`);
    const connect = frameOf(page, "customer-account.page.render");
    await expect(connect.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Connect your workspace");
    await connect.getByRole("link", { name: "Continue to the workspace service" }).click();
    await page.waitForURL(new RegExp(`^${h.emulator.url}/oauth/authorize`));
    await page.check('input[name="workspace_id"][value="ws-acme"]');
    await page.click('button[value="approve"]');
    await page.waitForURL(new RegExp(`^${accountUrl}/pages/workspace-connect\\?workspace_state=`));
    await connect.locator("[data-workspace-state=connected]").waitFor();
    expect(await connect.locator("[data-notice]").textContent()).toBe("Your workspace is connected.");
    expect(await connect.getByRole("status").count()).toBe(1); // Polaris' banner: a status (an alert when critical)
    expect(await connect.locator("body").textContent()).toContain("Connected to ws-acme since");
    expect(await h.db.prisma.customerGrant.count({ where: { shop: TEST_SHOP, customerId: ADA.id } })).toBe(1);

    await connect.getByRole("link", { name: "Back to your profile" }).click();
    await page.waitForURL(`${accountUrl}/profile`);
    await profile.locator("[data-workspace-state=connected]").waitFor();
    await expect(profile.getByRole("button", { name: "Disconnect" }).count()).resolves.toBe(1);
    expect(await violations(page)).toEqual([]);
    await context.close();
  }, 60_000);

  it("another signed-in customer coming back with the link connects nothing, for either of them", async () => {
    // Grace starts; the consent link reaches Ada, who approves and comes back signed in as herself.
    const grace = await signedIn(GRACE);
    await grace.page.goto(`${accountUrl}/pages/workspace-connect`);
    const consent = frameOf(grace.page, "customer-account.page.render").getByRole("link", {
      name: "Continue to the workspace service",
    });
    const authorizationUrl = (await consent.getAttribute("href"))!;
    expect(new URL(authorizationUrl).origin).toBe(h.emulator.url);

    const ada = await signedIn(ADA);
    const before = await h.db.prisma.customerGrant.findMany({
      where: { shop: TEST_SHOP },
      select: { customerId: true, workspaceId: true },
    });
    await ada.page.goto(authorizationUrl);
    await ada.page.check('input[name="workspace_id"][value="ws-globex"]');
    await ada.page.click('button[value="approve"]');
    await ada.page.waitForURL(new RegExp(`^${accountUrl}/pages/workspace-connect\\?workspace_state=`));
    const page = frameOf(ada.page, "customer-account.page.render");
    await page.locator("[data-notice=critical]").waitFor();
    expect(await page.locator("[data-notice]").textContent()).toContain("started from a different account");
    expect(
      await h.db.prisma.customerGrant.findMany({
        where: { shop: TEST_SHOP },
        select: { customerId: true, workspaceId: true },
      }),
    ).toEqual(before);
    expect(await h.db.prisma.customerGrant.count({ where: { customerId: GRACE.id } })).toBe(0);
    expect(await violations(ada.page)).toEqual([]);
    await grace.context.close();
    await ada.context.close();
  }, 60_000);

  it("the pre-authenticated Order status page asks to sign in (Shopify's requireLogin), then shows the order's state", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${accountUrl}/orders/${ORDER.id}?preauth=1`);
    const block = frameOf(page, "customer-account.order-status.block.render");
    await block.locator("[data-workspace-order=sign_in]").waitFor();
    expect(await block.locator("body").textContent()).toContain(
      "Sign in to see whether this order reached your workspace.",
    );
    expect(await block.locator("[data-workspace-order=unavailable], [tone=critical]").count()).toBe(0);
    await block.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(new RegExp(`^${accountUrl}/login`));
    await page.click(`[data-login="${ADA.id}"]`);
    await page.waitForURL(`${accountUrl}/orders/${ORDER.id}`);
    await block.locator("[data-workspace-order=sent]").waitFor();
    expect(await violations(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
