import { describe, expect, it } from "vitest";
import { newContext, screenshotPath } from "./helpers/browser";
import { withHarness } from "./helpers/harness";
import { embeddedUrl, sendWebhook, TEST_SHOP, webhookHmac } from "./helpers/shopify";

const h = withHarness({ app: {}, browser: true });

describe("embedded admin", () => {
  it("renders the Polaris app page for a valid session token and a stored session", async () => {
    const context = await newContext(h.browser);
    const page = await context.newPage();
    const response = await page.goto(await embeddedUrl(h.app.url, "/app"));
    expect(response?.status()).toBe(200);
    await page.waitForSelector(".Polaris-Page", { timeout: 15_000 });
    expect(await page.locator(".Polaris-Page").first().isVisible()).toBe(true);
    expect(await page.textContent("body")).toContain("Sync log");
    await page.screenshot({ path: screenshotPath("admin-app"), fullPage: true });
    await context.close();
  });

  it("refuses a session token signed with another secret", async () => {
    const url = new URL(await embeddedUrl(h.app.url, "/app"));
    const { mintSessionToken } = await import("./helpers/shopify");
    url.searchParams.set("id_token", await mintSessionToken(TEST_SHOP, { secret: "not-the-api-secret" }));
    const response = await fetch(url, { redirect: "manual", headers: { "User-Agent": "Mozilla/5.0 Chrome/131" } });
    expect(response.status).not.toBe(200);
  });
});

describe("webhooks", () => {
  const order = { id: 820982911946154500, created_at: "2026-11-01T10:00:00Z", line_items: [] };

  it("answers 200 to a correctly signed webhook and records the delivery", async () => {
    const response = await sendWebhook(h.app.url, "orders/create", order, { eventId: "evt-1" });
    expect(response.status).toBe(200);
    const stored = await h.db.prisma.webhookDelivery.findMany({ where: { eventId: "evt-1" } });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ shop: TEST_SHOP, topic: "ORDERS_CREATE" });
  });

  it("answers 401 to a wrong HMAC and stores nothing", async () => {
    const before = await h.db.prisma.webhookDelivery.count();
    const response = await sendWebhook(h.app.url, "orders/create", order, {
      eventId: "evt-forged",
      hmac: webhookHmac(JSON.stringify(order), "someone-elses-secret"),
    });
    expect(response.status).toBe(401);
    expect(await h.db.prisma.webhookDelivery.count()).toBe(before);
  });

  it("records a redelivered event once", async () => {
    await sendWebhook(h.app.url, "orders/updated", order, { eventId: "evt-2" });
    const again = await sendWebhook(h.app.url, "orders/updated", order, { eventId: "evt-2" });
    expect(again.status).toBe(200);
    expect(await h.db.prisma.webhookDelivery.count({ where: { eventId: "evt-2" } })).toBe(1);
  });
});

describe("health", () => {
  it("/healthz says the process is alive; /readyz that it is ready (migrations applied, the database answers)", async () => {
    const alive = await fetch(`${h.app.url}/healthz`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ alive: true });
    const ready = await fetch(`${h.app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ready: true,
      checks: { migrations: "applied", database: "ok", draining: false },
    });
  });
});
