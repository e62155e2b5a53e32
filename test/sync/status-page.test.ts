// The app over HTTP: signed webhooks into the queue, and the sync log page in headless Chromium.
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { beforeAll, describe, expect, it } from "vitest";
import type { GrantStore } from "~/service/client.server";
import { drainJobs, type SyncDeps } from "~/sync/job-runner.server";
import { newContext, screenshotPath } from "../helpers/browser";
import { withHarness } from "../helpers/harness";
import { embeddedUrl, mintSessionToken, sendWebhook, webhookHmac } from "../helpers/shopify";
import { connectCustomer, importCounts, SHOP, shopifyFulfillment, shopifyOrder, syncDeps } from "./support";
import { emulatorState, injectFault } from "../helpers/emulator";

const h = withHarness({ app: {}, emulator: "sync", browser: true });
let deps: SyncDeps;
const stores = new Map<string, GrantStore>();

beforeAll(async () => {
  deps = syncDeps(h.db.prisma, h.emulator, stores);
  await connectCustomer(h.db.prisma, h.emulator, stores, "7000000001");
});

describe("webhooks into the queue", () => {
  it("records a signed orders/create with its job, answers 200 before any import, and the worker imports it once", async () => {
    const order = shopifyOrder();
    const first = await sendWebhook(h.app.url, "orders/create", order, { eventId: "evt-app-1" });
    const again = await sendWebhook(h.app.url, "orders/create", order, { eventId: "evt-app-1" });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await h.db.prisma.webhookDelivery.count({ where: { eventId: "evt-app-1" } })).toBe(1);
    expect(await h.db.prisma.job.count({ where: { status: "queued" } })).toBe(1);
    expect((await emulatorState(h.emulator)).requests).toHaveLength(0); // nothing happened in the request
    await drainJobs(deps);
    const record = await h.db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(order.id) } });
    expect(record.state).toBe("imported");
    expect(importCounts(await emulatorState(h.emulator), "/api/v1/orders").get(String(order.id))).toBe(1);
  });

  it("keeps 64-bit Shopify ids exact from the raw body to the service", async () => {
    const order = shopifyOrder();
    const body = JSON.stringify({ ...order, id: "__ID__" }).replace('"__ID__"', "820982911946154508");
    const response = await fetch(new URL("/webhooks/orders/create", h.app.url), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Shopify-Topic": "orders/create",
        "X-Shopify-Shop-Domain": SHOP,
        "X-Shopify-Hmac-Sha256": webhookHmac(body),
        "X-Shopify-Webhook-Id": "wh-big-id",
        "X-Shopify-Event-Id": "evt-big-id",
        "X-Shopify-Api-Version": SHOPIFY_API_VERSION,
      },
      body,
    });
    expect(response.status).toBe(200);
    await drainJobs(deps);
    expect((await h.db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: "820982911946154508" } })).state).toBe(
      "imported",
    );
    expect(importCounts(await emulatorState(h.emulator), "/api/v1/orders").get("820982911946154508")).toBe(1);
  });

  it("takes all four topics and refuses a forged HMAC", async () => {
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    for (const [topic, payload] of [
      ["orders/create", order],
      ["orders/updated", { ...order, note: "gift" }],
      ["fulfillments/create", fulfillment],
      ["fulfillments/update", { ...fulfillment, shipment_status: "in_transit" }],
    ] as const) {
      expect((await sendWebhook(h.app.url, topic, payload)).status).toBe(200);
    }
    const forged = await sendWebhook(h.app.url, "orders/create", order, {
      hmac: webhookHmac(JSON.stringify(order), "not-the-secret"),
    });
    expect(forged.status).toBe(401);
    await drainJobs(deps);
    const records = await h.db.prisma.syncRecord.findMany({ where: { orderId: String(order.id) } });
    expect(records.map((r) => [r.kind, r.state]).sort()).toEqual([
      ["order", "imported"],
      ["shipment", "imported"],
    ]);
  });
});

describe("Sync log page", () => {
  it("says so when a state has no imports", async () => {
    const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const page = await context.newPage();
    await page.goto(await embeddedUrl(h.app.url, "/app/log?state=waiting"));
    await page.waitForSelector("text=No waiting imports");
    await context.close();
  });

  it("lists imports with state, reason, attempts; filters; retries; pauses and resumes; home shows backfill progress", async () => {
    // A failed import (the service refuses it), a skipped one (no customer), and a running backfill.
    await injectFault(h.emulator, { path: "/api/v1/orders", status: 500, times: 1 });
    const failing = shopifyOrder();
    await sendWebhook(h.app.url, "orders/create", failing);
    await h.db.prisma.job.updateMany({ where: { status: "queued" }, data: { maxAttempts: 1 } });
    await sendWebhook(h.app.url, "orders/create", shopifyOrder({ customer: null }));
    await drainJobs(deps);
    await h.db.prisma.backfill.create({
      data: { shop: SHOP, customerId: "7000000001", days: 60, total: 120, queued: 45 },
    });
    await h.db.prisma.customerGrant.update({
      where: { shop_customerId: { shop: SHOP, customerId: "7000000001" } },
      data: { customerName: "Ada Lovelace" },
    });

    const token = await mintSessionToken();
    const context = await newContext(h.browser, { Authorization: `Bearer ${token}` });
    const page = await context.newPage();
    const home = await page.goto(await embeddedUrl(h.app.url, "/app"));
    expect(home?.status()).toBe(200);
    await page.waitForSelector("text=Ada Lovelace: last 60 days, 120 orders found, 45 queued", { timeout: 20_000 });
    const response = await page.goto(await embeddedUrl(h.app.url, "/app/log"));
    expect(response?.status()).toBe(200);
    await page.waitForSelector(".Polaris-IndexTable", { timeout: 20_000 });
    const body = await page.textContent("body");
    expect(body).toContain("Sync log");
    expect(body).toContain(failing.name);
    expect(body).toContain(`Order ${failing.id}`);
    expect(body).toContain("Gave up after 1 attempt. The service had an internal problem (HTTP 500)");
    expect(body).toContain("The order has no customer, so there is no workspace to import it into.");
    await page.screenshot({ path: screenshotPath("sync-status"), fullPage: true });

    // Filter by state.
    await page.getByLabel("State").selectOption("failed");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/state=failed/);
    await page.waitForFunction(() => !document.body.innerText.includes("no workspace to import it into"));
    expect(await page.locator(".Polaris-IndexTable__TableRow").count()).toBe(1);
    await page.screenshot({ path: screenshotPath("sync-status-failed"), fullPage: true });

    // Retry re-queues the failed import (job rows only); the worker then imports it.
    await page.getByRole("button", { name: "Retry all failed in this view" }).click();
    await page.waitForSelector("text=1 import queued again");
    const failedRecord = await h.db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(failing.id) } });
    const job = await h.db.prisma.job.findFirstOrThrow({
      where: { recordId: failedRecord.id },
      orderBy: { seq: "desc" },
    });
    expect(job).toMatchObject({ status: "queued", attempts: 0 });
    await drainJobs(deps);
    expect((await h.db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(failing.id) } })).state).toBe(
      "imported",
    );

    // Pause, then resume.
    await page.getByRole("button", { name: "Pause sync" }).click();
    await page.waitForSelector("text=Sync is paused.");
    expect((await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } })).syncPaused).toBe(true);
    await page.screenshot({ path: screenshotPath("sync-status-paused"), fullPage: true });
    await page.getByRole("button", { name: "Resume sync" }).click();
    await page.waitForSelector("text=Sync resumed");
    expect((await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } })).syncPaused).toBe(false);
    await context.close();
  }, 90_000);

  it("pages through many imports with a cursor", async () => {
    await h.db.prisma.syncRecord.createMany({
      data: Array.from({ length: 110 }, (_, i) => ({
        shop: SHOP,
        kind: "order",
        externalId: `bulk-${i}`,
        orderId: `bulk-${i}`,
        state: "imported",
      })),
    });
    const token = await mintSessionToken();
    const context = await newContext(h.browser, { Authorization: `Bearer ${token}` });
    const page = await context.newPage();
    await page.goto(await embeddedUrl(h.app.url, "/app/log"));
    await page.waitForSelector(".Polaris-IndexTable");
    expect(await page.locator(".Polaris-IndexTable__TableRow").count()).toBe(50);
    await page.getByRole("button", { name: "Next" }).click();
    await page.waitForURL(/after=/);
    await page.waitForSelector(".Polaris-IndexTable");
    expect(await page.locator(".Polaris-IndexTable__TableRow").count()).toBe(50);
    await context.close();
  }, 60_000);
});
