// WCAG 2.2 AA in the merchant's admin: axe-core (test/helpers/axe.ts, every WCAG 2.0/2.1/2.2 A and AA rule) over each
// embedded page in headless Chromium, at a desktop (1280 px) and a phone (360 px) width, in each state a merchant
// meets: a new shop's empty pages, the loading skeleton, the error state, pages full of imports, a record's detail,
// the settings form with validation errors, the Customers page on its first and last page, the privacy page, and
// the login page outside the admin. No critical or serious violation passes.
import { translator } from "~/i18n/translate";
import { beforeAll, describe, expect, it } from "vitest";
import type { GrantStore } from "~/service/client.server";
import { drainJobs } from "~/sync/job-runner.server";
import { expectAccessible } from "../helpers/axe";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { createDataRequestRow, createHandoffRow, openAdminPage, serveSetupGuideShopify } from "../helpers/admin-pages";
import { injectFault } from "../helpers/emulator";
import { withHarness } from "../helpers/harness";
import { sendWebhook, TEST_SHOP } from "../helpers/shopify";
import { connectCustomer, shopifyFulfillment, shopifyOrder, syncDeps } from "../sync/support";

serveSetupGuideShopify();

const h = withHarness({ app: {}, emulator: "sync", browser: true });
const WIDTHS = [1280, 360] as const;

const open = (path: string, width = 1280) => openAdminPage(h.browser, h.app.url, path, { width });

/** WCAG's contrast ratio of two CSS rgb() colours. */
function contrast(a: string, b: string) {
  const luminance = (css: string) => {
    const [r, g, bl] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Opens `path` at each width, waits for `ready`, and checks the page with axe. */
async function checkAtWidths(path: string, ready: string, what: string, widths: readonly number[] = WIDTHS) {
  for (const width of widths) {
    const { context, page } = await open(path, width);
    try {
      await page.waitForSelector(ready, { timeout: 30_000 });
      await expectAccessible(page, `${what} at ${width} px`);
    } finally {
      await context.close();
    }
  }
}

describe("a new shop: empty states, loading, errors", () => {
  it("home with the setup guide", async () => {
    await checkAtWidths("/app", "text=Setup guide: 0 of 4 done", "home (new shop)");
  }, 90_000);

  it("the empty sync log, customers and privacy pages", async () => {
    await checkAtWidths("/app/log", "text=No imports yet", "sync log (empty)");
    await checkAtWidths("/app/customers", "text=No connected customers yet", "customers (empty)");
    await checkAtWidths("/app/privacy", "text=No open data requests", "privacy (no requests)");
  }, 120_000);

  it("the settings form, blank and with validation errors", async () => {
    await checkAtWidths("/app/settings", "[data-testid=settings-form]", "settings (blank)");
    for (const width of WIDTHS) {
      const { context, page } = await open("/app/settings", width);
      await page.waitForSelector("[data-testid=settings-form]", { timeout: 30_000 });
      await page.fill("input[name=baseUrl]", "not a web address");
      await page.fill("input[name=authUrl]", "ftp://auth.example.com");
      await page.click("[data-testid=settings-form] button[type=submit]");
      await page.waitForSelector("text=Correct the highlighted fields.");
      expect(await page.locator("[aria-invalid=true]").count()).toBeGreaterThan(1);
      await expectAccessible(page, `settings with validation errors at ${width} px`);
      await context.close();
    }
  }, 90_000);

  it("a record that does not exist: the error state", async () => {
    await checkAtWidths("/app/log/11111111-1111-4111-8111-111111111111", "text=Not found", "record not found");
  }, 60_000);

  it("the loading skeleton while the next page loads", async () => {
    const { context, page } = await open("/app");
    await page.waitForSelector("text=Setup guide", { timeout: 30_000 });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/app/log.data**", async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole("link", { name: "Sync log" }).first().click();
    await page.getByRole("status", { name: "Page loading" }).waitFor();
    await expectAccessible(page, "loading skeleton");
    release();
    await page.waitForSelector("text=No imports yet");
    await context.close();
  }, 60_000);

  it("the login page, blank and with an error", async () => {
    const context = await h.browser.newContext({ userAgent: CHROME_USER_AGENT });
    const page = await context.newPage();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${h.app.url}/auth/login`);
      await page.waitForSelector("input[name=shop]");
      await expectAccessible(page, `login at ${width} px`);
      await page.fill("input[name=shop]", "not a shop!");
      await page.getByRole("button", { name: "Log in" }).click();
      await page.waitForSelector("text=Please enter a valid shop domain to log in"); // login.error.invalidShop (en)
      await expectAccessible(page, `login with an error at ${width} px`);
    }
    await context.close();
  }, 60_000);
});

describe("a shop with imports, customers and requests", () => {
  const stores = new Map<string, GrantStore>();
  let failedId = "";
  let shipmentId = "";
  let handoffId = "";

  beforeAll(async () => {
    const deps = syncDeps(h.db.prisma, h.emulator, stores);
    await connectCustomer(h.db.prisma, h.emulator, stores, "7000000001");
    await h.db.prisma.customerGrant.update({
      where: { shop_customerId: { shop: TEST_SHOP, customerId: "7000000001" } },
      data: { customerName: "Ada Lovelace" },
    });
    // 24 more connected customers, one needing a reconnect: two pages of Customers (20 a page).
    await h.db.prisma.customerGrant.createMany({
      data: Array.from({ length: 24 }, (_, i) => ({
        shop: TEST_SHOP,
        customerId: String(7100000000 + i),
        customerName: `Customer ${i + 1}`,
        workspaceId: `ws-${i}`,
        scopes: "orders:write shipments:write",
        accessTokenEnc: "unused",
        status: i === 3 ? "needs_reconnect" : "active",
        statusReason: i === 3 ? "The workspace service refused the stored authorization." : null,
      })),
    });
    // Four orders, the first failing at the service (one attempt), a shipment, a cart handoff, a running backfill.
    await injectFault(h.emulator, { path: "/api/v1/orders", status: 500, times: 1 });
    const orders = Array.from({ length: 4 }, () => shopifyOrder());
    for (const order of orders) expect((await sendWebhook(h.app.url, "orders/create", order)).status).toBe(200);
    await h.db.prisma.job.updateMany({ where: { status: "queued" }, data: { maxAttempts: 1 } });
    await drainJobs(deps, { concurrency: 1 });
    await sendWebhook(h.app.url, "fulfillments/create", shopifyFulfillment(orders[1]));
    await drainJobs(deps);
    failedId = (
      await h.db.prisma.syncRecord.findFirstOrThrow({ where: { shop: TEST_SHOP, externalId: String(orders[0].id) } })
    ).id;
    shipmentId = (await h.db.prisma.syncRecord.findFirstOrThrow({ where: { shop: TEST_SHOP, kind: "shipment" } })).id;
    handoffId = (await createHandoffRow(h.db.prisma, "USD")).id;
    await h.db.prisma.backfill.create({
      data: { shop: TEST_SHOP, customerId: "7000000001", days: 60, total: 100, queued: 40, status: "done" },
    });
    // A launch's bulk backfill whose operation Shopify is still running.
    const run = await h.db.prisma.bulkRun.create({
      data: {
        shop: TEST_SHOP,
        status: "running",
        operationId: "gid://shopify/BulkOperation/1",
        shopifyStatus: "RUNNING",
      },
    });
    await h.db.prisma.backfill.create({
      data: { shop: TEST_SHOP, customerId: "7000000002", days: 60, path: "bulk", bulkRunId: run.id },
    });
    await h.db.prisma.workerHeartbeat.create({ data: { workerId: "w-a11y", beatAt: new Date() } });
    await createDataRequestRow(h.db.prisma, orders[0].id);
  }, 180_000);

  it("home: health, the chart at 7 and 30 days, backfills", async () => {
    for (const width of WIDTHS) {
      const { context, page } = await open("/app", width);
      await page.waitForSelector("text=Failures needing attention", { timeout: 30_000 });
      await expectAccessible(page, `home with imports (7 days) at ${width} px`);
      // The chart's figures, day by day, as a table screen readers find by its caption.
      const table = page.getByRole("table", { name: /^Imports and failures per day/ });
      expect(await table.locator("tbody tr").count()).toBe(7);
      const today = translator("en").date(new Date()); // the admin's language's date: English here
      expect(await table.locator("tbody tr").last().locator("th, td").allTextContents()).toEqual([today, "4", "1"]); // 3 orders and a shipment; 1 failure
      // Bars are graphics that carry meaning: each fill against the card behind it at 3:1 or more (WCAG 1.4.11).
      const colours = await page.locator("[data-testid=chart-7]").evaluate((svg) => {
        let behind: Element | null = svg;
        while (behind && getComputedStyle(behind).backgroundColor === "rgba(0, 0, 0, 0)") behind = behind.parentElement;
        const fills = [...new Set([...svg.querySelectorAll("rect")].map((r) => getComputedStyle(r).fill))];
        return { fills, background: behind ? getComputedStyle(behind).backgroundColor : "rgb(255, 255, 255)" };
      });
      expect(colours.fills).toHaveLength(2);
      for (const fill of colours.fills) expect(contrast(fill, colours.background), fill).toBeGreaterThanOrEqual(3);
      await page.getByRole("button", { name: "30 days" }).click();
      await page.waitForSelector("text=Last 30 days:");
      expect(
        await page
          .getByRole("table", { name: /^Imports and failures per day/ })
          .locator("tbody tr")
          .count(),
      ).toBe(30);
      await expectAccessible(page, `home with imports (30 days) at ${width} px`);
      await context.close();
    }
  }, 90_000);

  it("the sync log: rows, a selection with its bulk actions, an action's message, a filter with no match, paused", async () => {
    await checkAtWidths("/app/log", "a[data-primary-link]", "sync log with imports");
    {
      // Selecting is a desktop table's checkbox (the phone's condensed list selects through its own menu).
      const { context, page } = await open("/app/log?state=attention");
      await page.waitForSelector("a[data-primary-link]", { timeout: 30_000 });
      await page.locator(".Polaris-IndexTable__TableRow .Polaris-Checkbox").first().click();
      await page.getByRole("button", { name: "Mark as resolved" }).waitFor();
      await expectAccessible(page, "sync log with a row selected");
      await context.close();
    }
    await checkAtWidths("/app/log?state=skipped", "text=No skipped imports", "sync log (filter with no match)");
    await h.db.prisma.shopSettings.upsert({
      where: { shop: TEST_SHOP },
      create: { shop: TEST_SHOP, syncPaused: true },
      update: { syncPaused: true },
    });
    try {
      const { context, page } = await open("/app/log");
      await page.waitForSelector("text=Sync is paused.", { timeout: 30_000 });
      await page.getByRole("button", { name: "Resume sync" }).click();
      await page.waitForSelector("[role=status] .Polaris-Banner");
      await expectAccessible(page, "sync log after an action (its message shown)");
      await context.close();
    } finally {
      await h.db.prisma.shopSettings.updateMany({ where: { shop: TEST_SHOP }, data: { syncPaused: false } });
    }
  }, 180_000);

  it("a record's detail: a failed order, a shipment, a cart handoff", async () => {
    await checkAtWidths(`/app/log/${failedId}`, "text=Request sent to the service", "failed order's detail");
    await checkAtWidths(`/app/log/${shipmentId}`, "text=Request sent to the service", "shipment's detail");
    await checkAtWidths(`/app/log/${handoffId}`, "text=Expires", "cart handoff's detail");
  }, 120_000);

  it("customers: the first and the last page, a confirmation, a search with no match", async () => {
    await checkAtWidths("/app/customers", "text=page 1 of 2", "customers (page 1 of 2)");
    await checkAtWidths("/app/customers?page=2", "text=page 2 of 2", "customers (page 2 of 2)");
    await checkAtWidths("/app/customers?q=nobody-at-all", "text=No customers match", "customers (no match)");
    const { context, page } = await open("/app/customers");
    await page
      .getByRole("button", { name: /^Disconnect / })
      .first()
      .click();
    await page.getByRole("button", { name: /^Confirm disconnect: / }).waitFor();
    await expectAccessible(page, "customers with a disconnect to confirm");
    await context.close();
  }, 120_000);

  it("privacy with an open data request", async () => {
    await checkAtWidths("/app/privacy", "text=Customer 7000000001", "privacy (a request)");
  }, 60_000);
});
