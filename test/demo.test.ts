// `npm run demo` as a newcomer runs it, driven from its `demo ready` line by headless Chromium: the storefront
// (products, cart drawer, cart page), a customer connecting a workspace, `npm run demo:orders` filling the sync
// log and the emulator. Then the same on PostgreSQL with two worker processes, one of them killed mid-run.
// Screenshots go to test-results/; with UPDATE_DOC_IMAGES=1 also to docs/images/ (the README shows them).
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchBrowser, newContext, screenshotPath } from "./helpers/browser";
import {
  DEMO_TIMEOUT_MS,
  emulatorState,
  ROOT,
  runOrders,
  startDemo,
  waitForImports,
  type RunningDemo,
} from "./helpers/demo";
import { injectFault } from "./helpers/emulator";

async function shot(page: Page, name: string) {
  const file = screenshotPath(`demo-${name}`);
  await page.screenshot({ path: file });
  if (process.env.UPDATE_DOC_IMAGES === "1") copyFileSync(file, path.join(ROOT, "docs/images", `demo-${name}.png`));
}

async function browserFor(browser: Browser): Promise<BrowserContext> {
  const context = await newContext(browser);
  await context.route("https://cdn.shopify.com/**", (route) => route.abort()); // App Bridge's CDN: not reachable here
  return context;
}

describe("npm run demo (PGlite, worker in the app)", () => {
  let demo: RunningDemo;
  let browser: Browser;
  let startMs = 0;
  let ordersBeforeRestart: string[] = [];

  beforeAll(async () => {
    const started = Date.now();
    demo = await startDemo();
    startMs = Date.now() - started;
    browser = await launchBrowser();
  }, DEMO_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  }, 30_000);

  it("announces every address on 127.0.0.1, with the shop's secret and a connected customer", () => {
    console.log(`demo ready after ${(startMs / 1000).toFixed(1)} s`);
    const { ready } = demo;
    for (const url of [
      ready.app_url,
      ready.admin_url,
      ready.storefront_url,
      ready.customer_account_url,
      ready.emulator_url,
    ])
      expect(new URL(url).hostname).toBe("127.0.0.1");
    expect(ready.shop).toBe("demo-shop.myshopify.com");
    expect(ready.api_secret).toBeTruthy();
    expect(ready.customer_id).toMatch(/^\d+$/);
    expect(ready.worker_pids).toEqual([]);
  });

  it("a shopper browses the storefront, adds two products (cart drawer, cart page) and continues the cart on the service's claim page", async () => {
    const context = await browserFor(browser);
    const page = await context.newPage();
    await page.goto(demo.ready.storefront_url);
    expect(await page.locator(".product-card").count()).toBe(5);
    const visibleContinueCart = () => page.locator(".continue-cart__button:visible").count();
    await page.waitForFunction(() => "__continueCart" in window); // the embed's script ran, and placed nothing
    expect(await visibleContinueCart()).toBe(0);
    await shot(page, "storefront");

    await page.click('[data-product="blue-mug"]');
    await page.click("[data-add-to-cart]");
    await page.locator("cart-drawer.active #CartDrawer").waitFor({ state: "visible" });
    expect(await page.locator("[data-cart-count]").textContent()).toBe("1");
    await page.goto(new URL("/products/wool-beanie", demo.ready.storefront_url).toString());
    await page.fill('input[name="quantity"]', "2");
    await page.click("[data-add-to-cart]");
    await page.locator("cart-drawer.active #CartDrawer").waitFor({ state: "visible" });
    await page.waitForFunction(() => document.querySelector("[data-cart-count]")?.textContent?.trim() === "3");
    expect(await page.locator("[data-cart-total]").textContent()).toBe("€60.50");
    await page.locator("cart-drawer .continue-cart__button").waitFor({ state: "visible" });
    expect(await visibleContinueCart()).toBe(1);
    await shot(page, "cart-drawer");

    await page.click("[data-cart-view]");
    await page.waitForURL(/\/cart$/);
    const lines = await page.locator("[data-cart-line]").allTextContents();
    expect(lines.map((l) => l.replace(/\s+/g, " ").trim())).toEqual([
      "Blue mug €12.50 1 €12.50",
      "Wool beanie €24.00 2 €48.00",
    ]);
    await shot(page, "cart");

    // Continue cart (the extension's own block and script): the service's claim page with those lines and prices.
    await page.click('[data-app-block="continue-cart"] .continue-cart__button');
    await page.waitForURL(new RegExp(`^${demo.ready.emulator_url}/claim/`));
    const claim = await page.locator("tbody tr").allTextContents();
    expect(claim).toEqual(["Blue mug112.50 EUR", "Wool beanie224.00 EUR"]);
    await shot(page, "claim");
    const state = await emulatorState(demo);
    expect(state.handoffs).toHaveLength(1);
    await context.close();
  }, 90_000);

  it("customer account pages (the account extensions, on a host with Shopify's rules): connected, disconnect, reconnect through the Connect workspace page and consent, an imported order's status", async () => {
    const context = await browserFor(browser);
    const page = await context.newPage();
    const profileBlock = page.frameLocator('iframe[data-target="customer-account.profile.block.render"]');
    await page.goto(demo.ready.customer_account_url);
    await profileBlock.locator('[data-workspace-state="connected"]').waitFor();
    expect(await profileBlock.locator("body").textContent()).toContain("Connected to ws-acme since");
    await shot(page, "account-connected");

    await profileBlock.getByRole("button", { name: "Disconnect" }).click();
    await profileBlock.locator('[data-workspace-state="not_connected"]').waitFor();
    expect(await profileBlock.locator("[data-notice]").textContent()).toContain("Your workspace is disconnected.");
    await shot(page, "account-disconnected");

    // Connect leads to the app's Connect workspace page (a full-page extension); the consent opens in a new tab
    // (Polaris' target "auto"), completes on the store and comes back to the profile there; the page left open
    // asks the backend and shows the connection too.
    await profileBlock.getByRole("link", { name: "Connect workspace" }).click();
    await page.waitForURL(`${demo.ready.customer_account_url}/pages/workspace-connect`);
    const connectPage = page.frameLocator('iframe[data-target="customer-account.page.render"]');
    const [tab] = await Promise.all([
      context.waitForEvent("page"),
      connectPage.getByRole("link", { name: "Continue to the workspace service" }).click(),
    ]);
    await tab.waitForURL(new RegExp(`^${demo.ready.emulator_url}/oauth/authorize`));
    await tab.check('input[name="workspace_id"][value="ws-acme"]');
    await tab.click('button[value="approve"]');
    await tab.waitForURL(`${demo.ready.customer_account_url}/profile`);
    const backBlock = tab.frameLocator('iframe[data-target="customer-account.profile.block.render"]');
    await backBlock.locator('[data-workspace-state="connected"]').waitFor();
    expect(await backBlock.locator("[data-notice]").textContent()).toBe("Your workspace is connected.");
    await shot(tab, "account-reconnected");
    await tab.close();
    await connectPage.locator('[data-workspace-state="connected"]').waitFor({ timeout: 15_000 });
    await connectPage.getByRole("link", { name: "Back to your profile" }).click();
    await profileBlock.locator('[data-workspace-state="connected"]').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __apiViolations: string[] }).__apiViolations)).toEqual([]);

    // The order status block on one of Ada's past orders, imported by the backfill when she connected.
    const orderBlock = page.frameLocator('iframe[data-target="customer-account.order-status.block.render"]');
    const deadline = Date.now() + 60_000;
    for (;;) {
      await page.goto(`${demo.ready.customer_account_url}/orders`);
      await page.click("text=Order #");
      await orderBlock.locator("[data-workspace-order]:not([data-workspace-order=loading])").waitFor();
      if ((await orderBlock.locator("[data-workspace-order]").getAttribute("data-workspace-order")) === "sent") break;
      if (Date.now() > deadline)
        throw new Error(`the order was not imported: ${await orderBlock.locator("body").textContent()}`);
      await page.waitForTimeout(500);
    }
    expect(await orderBlock.locator("body").textContent()).toContain("This order was sent to your workspace.");
    expect(await orderBlock.locator("[data-shipment]").first().textContent()).toBe(
      "Shipment 1: sent to your workspace.",
    );
    await shot(page, "account-order");

    // The same order opened from its email without signing in (pre-authenticated): a sign-in prompt, no error.
    await page.goto(`${page.url()}?preauth=1`);
    await orderBlock.locator('[data-workspace-order="sign_in"]').waitFor();
    expect(await orderBlock.locator("body").textContent()).toContain(
      "Sign in to see whether this order reached your workspace.",
    );
    expect(await orderBlock.getByRole("button", { name: "Sign in" }).count()).toBe(1);
    await shot(page, "account-order-signed-out");
    await context.close();
  }, 120_000);

  it("another signed-in customer who comes back with a customer's consent link connects nothing", async () => {
    // Grace opens the Connect workspace page; her consent link reaches Ada, who approves it signed in as herself.
    const grace = await browserFor(browser);
    const gracePage = await grace.newPage();
    await gracePage.goto(
      `${demo.ready.customer_account_url}/login?customer=7300000002&return_url=${encodeURIComponent("/account/pages/workspace-connect")}`,
    );
    const consent = gracePage
      .frameLocator('iframe[data-target="customer-account.page.render"]')
      .getByRole("link", { name: "Continue to the workspace service" });
    const authorizationUrl = (await consent.getAttribute("href"))!;
    await grace.close();

    const ada = await browserFor(browser);
    const page = await ada.newPage();
    // Signed in as herself (one sign-in for the account pages and the store, as with new customer accounts).
    await page.goto(
      `${demo.ready.customer_account_url}/login?customer=7300000001&return_url=${encodeURIComponent("/account/profile")}`,
    );
    await page.goto(authorizationUrl);
    await page.check('input[name="workspace_id"][value="ws-globex"]');
    await page.click('button[value="approve"]');
    // Told on the store's Connect page (where the completion step found her signed in as herself).
    await page.waitForURL(/\/apps\/workspace\/connect\?result=wrong_customer$/);
    expect(await page.locator("body").textContent()).toContain("started from a different customer account");
    // Ada keeps her own workspace; Grace has none.
    expect(await page.locator("body").textContent()).toContain("ws-acme");
    await page.goto(
      `${demo.ready.customer_account_url}/login?customer=7300000002&return_url=${encodeURIComponent("/account/profile")}`,
    );
    await page
      .frameLocator('iframe[data-target="customer-account.profile.block.render"]')
      .locator('[data-workspace-state="not_connected"]')
      .waitFor();
    await ada.close();
  }, 60_000);

  it("the demo customer logs in and connects a workspace through the emulator's consent page", async () => {
    const context = await browserFor(browser);
    const page = await context.newPage();
    await page.goto(new URL("/account", demo.ready.storefront_url).toString());
    await page.click(`[data-login="${demo.ready.customer_id}"]`);
    await page.waitForURL(/\/account$/);
    await page.click(".connect-workspace-block__button");
    await expect(page.locator('[data-status="connected"]').textContent()).resolves.toContain("ws-acme");
    await page.click('[data-action="connect"]');
    await page.waitForURL(new RegExp(`^${demo.ready.emulator_url}/oauth/authorize`));
    await page.check('input[name="workspace_id"][value="ws-globex"]');
    await shot(page, "consent");
    await page.click('button[value="approve"]');
    await page.waitForURL(/\/apps\/workspace\/connect\?result=connected/);
    expect(await page.locator('[data-status="connected"]').textContent()).toContain("ws-globex");
    await shot(page, "connected");
    await context.close();
  });

  it("demo:orders --count 20: every order and shipment reaches the emulator and shows in the admin's sync log", async () => {
    const sent = await runOrders(demo, 20);
    expect(sent.order_ids).toHaveLength(20);
    ordersBeforeRestart = sent.order_ids;
    const state = await waitForImports(demo, sent);
    const ours = new Set(sent.order_ids);
    expect(state.orders.filter((o) => ours.has(o.external_id)).every((o) => o.workspace_id === "ws-globex")).toBe(true);

    const context = await browserFor(browser);
    const page = await context.newPage();
    await page.goto(`${demo.ready.admin_url}/log`); // the Sync log
    const last = sent.order_ids[sent.order_ids.length - 1];
    await page.getByText(`Order ${last}`).first().waitFor();
    await shot(page, "admin-sync");
    await page.goto(`${demo.ready.emulator_url}/_emulator/state`);
    expect(await page.locator("body").textContent()).toContain(last);
    await context.close();
  });

  it("the customer's past orders came from the Admin API when they connected (the backfill)", async () => {
    const state = await emulatorState(demo);
    // dev/demo-store's history: three orders of the first customer, two of them shipped (ids 55000000xx).
    expect(state.orders.filter((o) => /^55000000\d\d$/.test(o.external_id)).length).toBeGreaterThanOrEqual(3);
    expect(state.shipments.filter((s) => /^66000000\d\d$/.test(s.external_id)).length).toBeGreaterThanOrEqual(2);
  });

  it("Shopify's order page shows the app's block for a demo order; a failed import reaches Shopify Flow once", async () => {
    expect(new URL(demo.ready.order_page_url).hostname).toBe("127.0.0.1");
    const context = await browserFor(browser);
    const page = await context.newPage();
    await page.setViewportSize({ width: 1100, height: 380 });
    await page.goto(demo.ready.order_page_url);
    const block = page.frameLocator("#block");
    await block.getByText("Order import").waitFor({ timeout: 30_000 });
    await block.locator("s-badge", { hasText: "Imported" }).first().waitFor({ timeout: 30_000 });
    await shot(page, "order-block");
    // The block used only what Shopify's types give an admin block (no toast, no window.navigation).
    expect(await page.evaluate(() => (window as unknown as { __apiViolations: string[] }).__apiViolations)).toEqual([]);
    expect(await block.getByRole("link", { name: "Open in the sync log" }).count()).toBeGreaterThan(0);

    // The service refuses the next order: its import fails, the block offers Retry now, Flow hears of it once.
    await injectFault(demo.ready.emulator_url, {
      path: "/api/v1/orders",
      status: 422,
      body: { error: "invalid_payload", message: "lines[0].sku: unknown SKU" },
    });
    const sent = await runOrders(demo, 1);
    const flowText = async () => await (await fetch(demo.ready.flow_triggers_url)).text();
    for (const deadline = Date.now() + 30_000; !(await flowText()).includes(sent.order_ids[0]);) {
      if (Date.now() > deadline) throw new Error("no Flow trigger for the failed order");
      await new Promise((r) => setTimeout(r, 300));
    }
    const flow = await flowText();
    expect(flow).toContain("1 trigger(s)");
    expect(flow).toContain("order-import-needs-attention");
    expect(flow).not.toContain("@example.com");
    await page.setViewportSize({ width: 1100, height: 440 });
    await page.goto(new URL(`/admin/orders/${sent.order_ids[0]}`, demo.ready.order_page_url).toString());
    await block.locator("s-badge", { hasText: "Failed" }).waitFor({ timeout: 30_000 });
    await block.locator("s-button", { hasText: "Retry now" }).first().waitFor();
    await shot(page, "order-block-failed");
    await context.close();
  });

  it("Ctrl-C stops every process the demo started", async () => {
    const pids = execFileSync("pgrep", ["-g", String(demo.child.pid)])
      .toString()
      .trim()
      .split("\n");
    expect(pids.length).toBeGreaterThan(2);
    await demo.stop({ keepData: true }); // the next test starts it again on the same data
    // The demo has exited; the processes it stopped may take a moment longer to be gone on a loaded machine.
    const alive = (pid: string) => {
      try {
        process.kill(Number(pid), 0);
        return true;
      } catch {
        return false;
      }
    };
    for (const deadline = Date.now() + 10_000; pids.some(alive) && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 100));
    for (const pid of pids) expect(() => process.kill(Number(pid), 0)).toThrow();
    // and tells the newcomer what became of their data
    await vi.waitFor(
      () =>
        expect(demo.output()).toContain(
          `Stopped. The app's data stays in ${demo.dataDir}: \`npm run demo\` starts it again where it left off.`,
        ),
      { timeout: 5_000 },
    );
  }, 30_000);

  it(
    "npm run demo again on the same data dir: ready with the same data, its customer connected again, and a new order reaches the emulator",
    async () => {
      const first = demo;
      demo = await startDemo([], { dataDir: first.dataDir });
      expect(demo.ready.customer_id).toBe(first.ready.customer_id);
      expect(demo.ready.emulator_url).not.toBe(first.ready.emulator_url); // a new emulator, on a new port
      expect(demo.output()).not.toContain("refused");
      // The same data: the orders synced before the restart are still in the admin's sync log.
      const context = await browserFor(browser);
      const page = await context.newPage();
      await page.goto(`${demo.ready.admin_url}/log`);
      await page
        .getByText(`Order ${ordersBeforeRestart[ordersBeforeRestart.length - 1]}`)
        .first()
        .waitFor();
      await context.close();
      // The customer connected again (the new emulator issued them a new token): a new order reaches it.
      const sent = await runOrders(demo, 1);
      await waitForImports(demo, sent);
      // The terminal stays readable: no raw JSON log lines, the banner names the log file that has every line.
      expect(demo.output()).not.toMatch(/^\[\w+\] \{"level"/m);
      expect(demo.output()).toContain(path.join(demo.dataDir, "demo.log"));
      expect(readFileSync(path.join(demo.dataDir, "demo.log"), "utf8")).toContain(
        `[emulator] listening on ${demo.ready.emulator_url}`,
      );
    },
    DEMO_TIMEOUT_MS + 60_000,
  );
});

describe.runIf(process.env.TEST_DATABASE_URL)("npm run demo --database-url (PostgreSQL) --workers 2", () => {
  let demo: RunningDemo;
  let databaseUrl: string;
  const name = `demo_${Date.now().toString(36)}`;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    demo = await startDemo(["--database-url", databaseUrl, "--workers", "2"]);
  }, DEMO_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await demo?.stop();
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }, 60_000);

  it("runs the sync in two worker processes, and killing one mid-run loses no order or shipment", async () => {
    expect(demo.ready.worker_pids).toHaveLength(2);
    await waitForImports(demo, { order_ids: ["5500000001", "5500000002", "5500000003"], fulfillment_ids: [] }); // the backfill
    const before = (await emulatorState(demo)).orders.length;
    const sending = runOrders(demo, 20);
    // Mid-run: the first new order has arrived at the service, most are still queued or in a worker's hands.
    while ((await emulatorState(demo)).orders.length === before) await new Promise((r) => setTimeout(r, 50));
    process.kill(demo.ready.worker_pids[0], "SIGKILL");
    const sent = await sending;
    await waitForImports(demo, sent, 150_000);
    expect(() => process.kill(demo.ready.worker_pids[1], 0)).not.toThrow();
  }, 240_000);
});
