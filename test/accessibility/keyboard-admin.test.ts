// A merchant with a keyboard only, in headless Chromium against the app's build: in the sync log, select a failed
// import with Space and Retry selected, select another and Mark as resolved; open a failed record from its link
// and Retry now, then Mark as resolved. Every stop on the way has visible focus and comes in document order
// (test/helpers/keyboard.ts); nothing is clicked.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newContext } from "../helpers/browser";
import { injectFault } from "../helpers/emulator";
import { withHarness } from "../helpers/harness";
import { startWalk, tabTo } from "../helpers/keyboard";
import { embeddedUrl, mintSessionToken, sendWebhook, TEST_SHOP } from "../helpers/shopify";
import { connectCustomer, shopifyOrder, syncDeps } from "../sync/support";
import { drainJobs } from "~/sync/job-runner.server";
import type { GrantStore } from "~/service/client.server";

const h = withHarness({ app: {}, emulator: "sync", browser: true });

/** Three orders the service refused (one attempt each): records in "failed" with their jobs. */
async function failedOrders() {
  const stores = new Map<string, GrantStore>();
  await connectCustomer(h.db.prisma, h.emulator, stores, "7000000001");
  await injectFault(h.emulator, { path: "/api/v1/orders", status: 500, times: 3 });
  const orders = Array.from({ length: 3 }, () => shopifyOrder());
  for (const order of orders) expect((await sendWebhook(h.app.url, "orders/create", order)).status).toBe(200);
  await h.db.prisma.job.updateMany({ where: { status: "queued" }, data: { maxAttempts: 1 } });
  await drainJobs(syncDeps(h.db.prisma, h.emulator, stores), { concurrency: 1 });
  expect(await h.db.prisma.syncRecord.count({ where: { shop: TEST_SHOP, state: "failed" } })).toBe(3);
  return orders;
}

/** The page has hydrated (the admin's own nav appears then): focus moved before that would be lost to React. */
const hydrated = (page: Page) => page.getByRole("navigation", { name: "App" }).waitFor({ timeout: 30_000 });

async function open(path: string): Promise<Page> {
  const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(await embeddedUrl(h.app.url, path));
  await hydrated(page);
  return page;
}

async function stateOf(orderId: number) {
  const record = await h.db.prisma.syncRecord.findFirstOrThrow({
    where: { shop: TEST_SHOP, externalId: String(orderId) },
  });
  return { ...record, jobs: await h.db.prisma.job.findMany({ where: { recordId: record.id } }) };
}

describe("the sync log by keyboard", () => {
  it("Space selects a failed import, Retry selected queues it; another, Mark as resolved resolves it; a record's page: Retry now, Mark as resolved", async () => {
    const [first, second, third] = await failedOrders();
    const page = await open("/app/log?state=failed&sort=asc");
    try {
      await page.locator("a[data-primary-link]").first().waitFor({ timeout: 30_000 });
      const row = (order: { name: string }) => page.locator(".Polaris-IndexTable__TableRow", { hasText: order.name });

      // Retry selected.
      await tabTo(page, row(first).getByRole("checkbox"));
      await page.keyboard.press("Space");
      // Polaris fades the bulk actions in above the rows (as a sighted user sees them appear): back up to them.
      await page.getByRole("button", { name: "Retry selected" }).waitFor({ state: "visible" });
      await tabTo(page, page.getByRole("button", { name: "Retry selected" }), { backwards: true });
      await page.keyboard.press("Enter");
      await page.getByText("1 import queued again.").waitFor();
      expect((await stateOf(first.id)).jobs.some((j) => j.status === "queued")).toBe(true);

      // Mark as resolved, from the top of the page again.
      await page.reload();
      await hydrated(page);
      await startWalk(page);
      await row(second).waitFor();
      await tabTo(page, row(second).getByRole("checkbox"));
      await page.keyboard.press("Space");
      await page.getByRole("button", { name: "Mark as resolved" }).first().waitFor({ state: "visible" });
      await tabTo(page, page.getByRole("button", { name: "Mark as resolved" }), { backwards: true });
      await page.keyboard.press("Enter");
      await page.getByText("1 import marked as resolved.").waitFor();
      expect((await stateOf(second.id)).resolvedAt).not.toBeNull();

      // A record's page, opened from its link: Retry now, then Mark as resolved.
      await page.reload();
      await hydrated(page);
      await startWalk(page);
      await row(third).waitFor();
      await tabTo(page, row(third).getByRole("link", { name: third.name }));
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: `Order ${third.name}` }).waitFor();
      await startWalk(page);
      await tabTo(page, page.getByRole("button", { name: "Retry now" }));
      await page.keyboard.press("Enter");
      await page.getByText("Queued again. The state updates once it has run.").waitFor();
      await h.db.prisma.job.updateMany({ where: { status: "queued" }, data: { status: "failed" } }); // it ran, and failed again
      // Mark as resolved sits beside Retry now, before it in the page header.
      await tabTo(page, page.getByRole("button", { name: "Mark as resolved" }), { backwards: true });
      await page.keyboard.press("Enter");
      await page.getByText("1 import marked as resolved.").waitFor();
      expect((await stateOf(third.id)).resolvedAt).not.toBeNull();
    } finally {
      await page.context().close();
    }
  }, 120_000);
});

describe("the sync log's filters by keyboard", () => {
  it("every field, the date fields included, shows its focus walking forwards to Clear and back to the first", async () => {
    const page = await open("/app/log");
    try {
      await startWalk(page);
      const forwards = await tabTo(page, page.getByRole("link", { name: "Clear" }));
      const backwards = await tabTo(page, page.getByLabel("Order name or number"), { backwards: true });
      for (const label of ['"From (UTC)"', '"To (UTC)"', '"Sort by date"'])
        for (const walk of [forwards, backwards]) expect(walk.map((s) => s.label).join("\n")).toContain(label);
    } finally {
      await page.context().close();
    }
  }, 60_000);
});
