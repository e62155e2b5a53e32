// The merchant's admin in headless Chromium against the built app, the emulator and a real database: every page at
// 360 px and 1280 px with seeded data (screenshots in test-results/), the empty and error states, retry from a
// record's page into the emulator, a bulk retry of 50 failures imported exactly once, the CSV of a filtered view,
// and pages that refresh themselves while work runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { RunningEmulator } from "../../emulator/server";
import type { GrantStore } from "~/service/client.server";
import { drainJobs, type SyncDeps } from "~/sync/job-runner.server";
import { startApp, type RunningApp } from "../helpers/app";
import { launchBrowser, screenshotPath } from "../helpers/browser";
import { createHandoffRow, openAdminPage } from "../helpers/admin-pages";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { seedOfflineSession, sendWebhook } from "../helpers/shopify";
import {
  connectCustomer,
  importCounts,
  settingsFor,
  SHOP,
  shopifyFulfillment,
  shopifyOrder,
  syncDeps,
} from "../sync/support";
import { emulatorState, injectFault, startTestEmulator } from "../helpers/emulator";

let db: TestDatabase;
let app: RunningApp;
let emulator: RunningEmulator;
let browser: Browser;
let deps: SyncDeps;
const stores = new Map<string, GrantStore>();
const WIDTHS = [360, 1280] as const;

beforeAll(async () => {
  [db, emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
  await seedOfflineSession(db.prisma);
  app = await startApp(db); // the run's encryption key (test/setup.ts), the one the seeded session is stored with
  browser = await launchBrowser();
  deps = syncDeps(db.prisma, emulator, stores);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await emulator?.close();
  await db?.close();
});

const open = (path: string, width = 1280) => openAdminPage(browser, app.url, path, { width });

/** Readable at this width: nothing but a table's own scroller is wider than the window. */
async function expectNoPageOverflow(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
}

/** Rows of the sync log, as a wide table (1280 px) or condensed cards (360 px): one record link each. */
const rowCount = (page: Page) => page.locator("a[data-primary-link]").count();

/** Orders through real webhooks, failing at the service `failing` times (one HTTP attempt per job). */
async function seedOrders(count: number, failing: number) {
  if (failing > 0) await injectFault(emulator, { path: "/api/v1/orders", status: 500, times: failing });
  const orders = Array.from({ length: count }, () => shopifyOrder());
  for (const order of orders) expect((await sendWebhook(app.url, "orders/create", order)).status).toBe(200);
  await db.prisma.job.updateMany({ where: { status: "queued" }, data: { maxAttempts: 1 } });
  // One at a time, in arrival order: the first `failing` orders are the ones the service refuses.
  await drainJobs(deps, { concurrency: 1 });
  return orders;
}

describe("empty and error states", () => {
  it("shows the setup guide and an empty log on a new shop, at both widths", async () => {
    for (const width of WIDTHS) {
      const home = await open("/app", width);
      await home.page.waitForSelector("text=Setup guide: 0 of 4 done", { timeout: 30_000 });
      expect(await home.page.textContent("body")).toContain("Connection not checked yet.");
      await expectNoPageOverflow(home.page);
      await home.page.screenshot({ path: screenshotPath(`admin-home-new-${width}`), fullPage: true });
      await home.page.getByRole("link", { name: "Sync log" }).first().click();
      await home.page.waitForSelector("text=No imports yet");
      await expectNoPageOverflow(home.page);
      await home.page.screenshot({ path: screenshotPath(`admin-log-empty-${width}`), fullPage: true });
      await home.context.close();
    }
  }, 120_000);

  it("says plainly when a record does not exist (or is another shop's)", async () => {
    await db.prisma.syncRecord.create({
      data: {
        id: "11111111-1111-4111-8111-111111111111",
        shop: "other.myshopify.com",
        kind: "order",
        externalId: "9",
        orderId: "9",
      },
    });
    for (const width of WIDTHS) {
      const { context, page } = await open("/app/log/11111111-1111-4111-8111-111111111111", width);
      await page.waitForSelector("text=Not found");
      expect(await page.textContent("body")).toContain("It may have been removed, or it belongs to another store.");
      await page.screenshot({ path: screenshotPath(`admin-error-${width}`), fullPage: true });
      await context.close();
    }
  }, 60_000);
});

describe("with imports", () => {
  let orders: ReturnType<typeof shopifyOrder>[];

  beforeAll(async () => {
    await connectCustomer(db.prisma, emulator, stores, "7000000001");
    await db.prisma.customerGrant.update({
      where: { shop_customerId: { shop: SHOP, customerId: "7000000001" } },
      data: { customerName: "Ada Lovelace" },
    });
    orders = await seedOrders(4, 1); // the first order fails (HTTP 500, one attempt allowed)
    const fulfillment = shopifyFulfillment(orders[1]);
    await sendWebhook(app.url, "fulfillments/create", fulfillment);
    await sendWebhook(app.url, "orders/create", shopifyOrder({ customer: null }));
    await drainJobs(deps);
    await createHandoffRow(db.prisma, "USD");
    await db.prisma.workerHeartbeat.create({ data: { workerId: "w-test", beatAt: new Date() } });
  }, 120_000);

  it("home: health at a glance, a chart with a text summary, the rest of the setup guide", async () => {
    for (const width of WIDTHS) {
      const { context, page } = await open("/app", width);
      await page.waitForSelector("text=Failures needing attention", { timeout: 30_000 });
      const body = (await page.textContent("body"))!;
      expect(body).toContain("Setup guide: 2 of 4 done"); // a customer connected, an order imported; no settings
      expect(body).toContain("Running"); // the worker's heartbeat
      expect(body).toMatch(/Imported today \(UTC\)\s*4/); // 3 orders and a shipment
      expect(body).toMatch(/Failures needing attention\s*1/);
      expect(body).toMatch(/Customers connected\s*1/);
      expect(await page.getByRole("img", { name: /Last 7 days: 4 imports, 1 failure\./ }).count()).toBe(1);
      await page.getByRole("button", { name: "30 days" }).click();
      await page.waitForSelector("text=Last 30 days: 4 imports, 1 failure.");
      await expectNoPageOverflow(page);
      await page.screenshot({ path: screenshotPath(`admin-home-${width}`), fullPage: true });
      await page.getByRole("link", { name: "See failures" }).click();
      await page.waitForURL(/state=attention/);
      await page.waitForSelector(`text=${orders[0].name}`);
      expect(await rowCount(page)).toBe(1);
      await context.close();
    }
  }, 120_000);

  it("sync log: order names, customers, plain reasons; filters and search live in the URL", async () => {
    for (const width of WIDTHS) {
      const { context, page } = await open("/app/log", width);
      await page.waitForSelector(".Polaris-IndexTable", { timeout: 30_000 });
      const body = (await page.textContent("body"))!;
      for (const order of orders) expect(body).toContain(order.name);
      expect(body).toContain("Ada Lovelace");
      expect(body).toContain("Cart handoff");
      expect(body).toContain("Gave up after 1 attempt. The service had an internal problem (HTTP 500)");
      expect(await rowCount(page)).toBe(7); // 4 orders, a shipment, an order without customer, a handoff; not the other shop's
      await expectNoPageOverflow(page);
      await page.screenshot({ path: screenshotPath(`admin-log-${width}`), fullPage: true });
      await page.getByLabel("Order name or number").fill(orders[1].name.replace("#", ""));
      await page.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL(/q=/);
      await page.waitForFunction(() => document.querySelectorAll("a[data-primary-link]").length === 2); // the order and its shipment
      // The URL alone reproduces the view.
      const shared = await open(`/app/log?${new URL(page.url()).searchParams.toString()}`, width);
      await shared.page.waitForSelector(".Polaris-IndexTable");
      expect(await rowCount(shared.page)).toBe(2);
      await shared.context.close();
      await context.close();
    }
  }, 120_000);

  it("a record's page: admin link, request, attempts; Retry now imports it into the emulator; again is a no-op", async () => {
    const failed = await db.prisma.syncRecord.findFirstOrThrow({
      where: { shop: SHOP, externalId: String(orders[0].id) },
    });
    expect(failed.state).toBe("failed");
    for (const width of WIDTHS) {
      const { context, page } = await open(`/app/log/${failed.id}`, width);
      await page.waitForSelector(`text=Order ${orders[0].name}`, { timeout: 30_000 });
      const body = (await page.textContent("body"))!;
      expect(body).toMatch(/UTC500The service had an internal problem \(HTTP 500\)/); // time, HTTP status, explanation
      expect(body).toContain(`"external_order_id": "${orders[0].id}"`);
      expect(body).not.toMatch(/secret|Bearer|access_token/i);
      expect(await page.locator(`a[href="shopify:admin/orders/${orders[0].id}"]`).count()).toBeGreaterThan(0);
      await expectNoPageOverflow(page);
      await page.screenshot({ path: screenshotPath(`admin-detail-failed-${width}`), fullPage: true });
      await context.close();
    }
    const { context, page } = await open(`/app/log/${failed.id}`);
    await page.getByRole("button", { name: "Retry now" }).click();
    await page.waitForSelector("text=Queued again. The state updates once it has run.");
    await drainJobs(deps);
    expect((await db.prisma.syncRecord.findUniqueOrThrow({ where: { id: failed.id } })).state).toBe("imported");
    expect(importCounts(await emulatorState(emulator), "/api/v1/orders").get(String(orders[0].id))).toBe(1);
    await page.reload();
    await page.waitForSelector("text=Imported.");
    expect(await page.locator("tbody tr").count()).toBe(2); // two attempts: the 500 and the import
    await page.screenshot({ path: screenshotPath("admin-detail-imported-1280"), fullPage: true });
    await context.close();
    // A repeat (a second tab, a double click) changes nothing and says so.
    const again = await db.prisma.syncRecord.findUniqueOrThrow({ where: { id: failed.id } });
    const second = await open(`/app/log/${again.id}`);
    await second.page.evaluate(async (id) => {
      const form = new FormData();
      form.set("intent", "retry");
      const response = await fetch(`/app/log/${id}`, { method: "POST", body: form });
      document.body.dataset.answer = await response.text();
    }, again.id);
    expect(await second.page.evaluate(() => document.body.dataset.answer)).toContain(
      "Already imported. Nothing to retry.",
    );
    await second.context.close();
  }, 120_000);

  it("bulk retry of 50 failed imports imports each exactly once, and repeating it is a no-op", async () => {
    const failing = await seedOrders(50, 50);
    const ids = failing.map((o) => String(o.id));
    expect(await db.prisma.syncRecord.count({ where: { shop: SHOP, state: "failed", externalId: { in: ids } } })).toBe(
      50,
    );
    const { context, page } = await open("/app/log?state=failed");
    await page.waitForSelector(".Polaris-IndexTable", { timeout: 30_000 });
    await page.getByRole("button", { name: "Retry all failed in this view" }).click();
    await page.waitForSelector("text=50 imports queued again.");
    await page.getByRole("button", { name: "Retry all failed in this view" }).click();
    await page.waitForSelector("text=0 imports queued again, 50 already queued.");
    await drainJobs(deps);
    const counts = importCounts(await emulatorState(emulator), "/api/v1/orders");
    expect(failing.map((o) => counts.get(String(o.id)))).toEqual(failing.map(() => 1));
    // Each ran: none is waiting for another try (on a loaded machine a 1 s client timeout may still mark one failed
    // after the service took it; the count above is what the merchant relies on).
    expect(await db.prisma.job.count({ where: { shop: SHOP, status: { in: ["queued", "running"] } } })).toBe(0);
    await context.close();
  }, 180_000);

  it("the CSV export of a filtered view has the same rows as the view", async () => {
    const { context, page } = await open("/app/log?kind=order&state=imported&sort=asc");
    await page.waitForSelector(".Polaris-IndexTable", { timeout: 30_000 });
    const viewIds: string[] = [];
    for (;;) {
      viewIds.push(
        ...(await page
          .locator("a[data-primary-link]")
          .evaluateAll((links) => links.map((a) => a.getAttribute("href")!.split("/").pop()!))),
      );
      const next = page.getByRole("button", { name: "Next" });
      if (await next.isDisabled()) break;
      const before = page.url();
      const firstBefore = viewIds.at(-1)!;
      await next.click();
      await page.waitForURL((url) => url.toString() !== before);
      // The URL changes before the next page's rows are rendered: wait for the rows themselves.
      await page.waitForFunction(
        (last) =>
          !Array.from(document.querySelectorAll("a[data-primary-link]")).some((a) =>
            a.getAttribute("href")!.endsWith(`/${last}`),
          ),
        firstBefore,
      );
    }
    expect(viewIds.length).toBeGreaterThan(50); // more than one page
    const csv = await page.evaluate(async () =>
      (await fetch(`/app/log/export?kind=order&state=imported&sort=asc`)).text(),
    );
    const ids = csv
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(",")[0]);
    expect(ids).toEqual(viewIds);
    await context.close();
  }, 120_000);

  it("selected rows: mark as resolved from the table, and they leave 'needs attention'", async () => {
    await seedOrders(2, 2);
    const { context, page } = await open("/app/log?state=attention");
    await page.waitForSelector(".Polaris-IndexTable", { timeout: 30_000 });
    expect(await page.locator(".Polaris-IndexTable__TableRow").count()).toBe(2);
    for (const box of await page.locator(".Polaris-IndexTable__TableRow .Polaris-Checkbox").all()) await box.click();
    await page.getByRole("button", { name: "Mark as resolved" }).click();
    await page.waitForSelector("text=2 imports marked as resolved.");
    await page.waitForSelector("text=No needs attention imports");
    await page.screenshot({ path: screenshotPath("admin-log-resolved-1280"), fullPage: true });
    await context.close();
  }, 120_000);

  it("customers and settings pages at both widths; a passed check completes the setup guide, which then hides", async () => {
    for (const width of WIDTHS) {
      const customers = await open("/app/customers", width);
      await customers.page.waitForSelector("text=Ada Lovelace", { timeout: 30_000 });
      await expectNoPageOverflow(customers.page);
      await customers.page.screenshot({ path: screenshotPath(`admin-customers-${width}`), fullPage: true });
      await customers.context.close();
    }
    const { context, page } = await open("/app/settings");
    await page.waitForSelector("[data-testid=settings-form]", { timeout: 30_000 });
    const { environment: _environment, ...fields } = settingsFor(emulator);
    for (const [field, value] of Object.entries(fields)) {
      await page.fill(`input[name=${field}]`, value);
    }
    await page.click("[data-testid=settings-form] button[type=submit]");
    await page.waitForFunction(
      () => !document.querySelector("[data-testid=settings-form] button[type=submit][aria-busy=true]"),
    );
    await page.getByRole("button", { name: "Check connection" }).click();
    await page.waitForSelector("text=Connection ok", { timeout: 30_000 });
    await context.close();
    for (const width of WIDTHS) {
      const settings = await open("/app/settings", width);
      await settings.page.waitForSelector("[data-testid=settings-form]", { timeout: 30_000 });
      await expectNoPageOverflow(settings.page);
      await settings.page.screenshot({ path: screenshotPath(`admin-settings-${width}`), fullPage: true });
      await settings.context.close();
    }
    const home = await open("/app");
    await home.page.waitForSelector("text=Service settings", { timeout: 30_000 });
    const body = (await home.page.textContent("body"))!;
    expect(body).not.toContain("Setup guide");
    expect(body).toMatch(
      /Complete(Info)?Sandbox(Success)?Connection okLast checked \d{2}\/\d{2}\/\d{4}, \d{2}:\d{2} UTC/,
    ); // Badges carry a hidden tone word
    await home.context.close();
  }, 180_000);

  it("refreshes itself while a backfill runs and stops once it is done", async () => {
    const backfill = await db.prisma.backfill.create({
      data: { shop: SHOP, customerId: "7000000001", days: 60, total: 100, queued: 10 },
    });
    const { context, page } = await open("/app");
    // Found, queued, and imported (her orders the service has: this suite imported some of them already).
    await page.waitForSelector("text=/Ada Lovelace: last 60 days, 100 orders found, 10 queued, \\d+ imported/", {
      timeout: 30_000,
    });
    await page.waitForSelector("text=Read page by page", { timeout: 5_000 });
    await db.prisma.backfill.update({ where: { id: backfill.id }, data: { queued: 60 } });
    await page.waitForSelector("text=100 orders found, 60 queued", { timeout: 15_000 }); // no reload: revalidation
    await db.prisma.backfill.update({ where: { id: backfill.id }, data: { queued: 100, status: "done" } });
    await page.waitForSelector("text=100 orders found, 100 queued", { timeout: 15_000 });
    let loads = 0;
    page.on("request", (request) => {
      if (request.url().includes("_data=") || request.url().includes(".data")) loads += 1;
    });
    await page.waitForTimeout(7_000);
    expect(loads).toBe(0);
    await context.close();
  }, 60_000);
});
