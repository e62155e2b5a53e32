// Two web processes on one PostgreSQL database keep one budget, not two: a shop's Continue cart clicks and a
// customer's calls to the customer account routes, sent alternately to each process, are let through as often as
// one process would let them (app/lib/shared-budget.server.ts), where per-process buckets let through twice as many.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuild } from "../helpers/app";
import { startApp, statusOf, stopAllApps, waitUntil, type AppProcess } from "../helpers/app-process";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";
import { freePort } from "../helpers/demo";
import { mintCustomerToken, proxyUrl, TEST_SHOP } from "../helpers/shopify";

const KEYS = `shared:${randomBytes(32).toString("base64")}`;
const CLICKS_PER_MINUTE = 10; // HANDOFF_SHOP_PER_MINUTE: a burst of 10, then one every 6 s
const CUSTOMER_BURST = 30; // app/lib/shopper-budget.server.ts: "request", per customer, one back a second

describe.runIf(usingPostgres())("two web processes on PostgreSQL share their budgets", () => {
  let db: TestDatabase;
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    ensureBuild();
    db = await createTestDatabase("postgres");
    for (let i = 0; i < 2; i++)
      apps.push(
        startApp(await freePort(), db.url!, KEYS, {
          WORKER_IN_PROCESS: "false",
          HANDOFF_SHOP_PER_MINUTE: String(CLICKS_PER_MINUTE),
        }),
      );
    await waitUntil(
      async () => (await Promise.all(apps.map((a) => statusOf(`${a.url}/readyz`)))).every((s) => s === 200),
      90_000,
      "both processes ready",
    );
  }, 300_000);

  afterAll(async () => {
    await stopAllApps();
    await db?.close();
  }, 60_000);

  it("a shop's Continue cart clicks: the shop's burst across both processes, not twice it", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3 * CLICKS_PER_MINUTE; i++) {
      const app = apps[i % 2];
      const res = await fetch(proxyUrl(app.url, "/cart", { shop: TEST_SHOP, customerId: null }), {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ token: `tok-${randomUUID()}`, lines: [{ variant_id: "41000000001", quantity: 1 }] }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    // Past the door (the shop's budget): answered by what follows it (here 503, no service settings), not 429.
    const through = statuses.filter((s) => s !== 429).length;
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(through).toBeGreaterThanOrEqual(CLICKS_PER_MINUTE);
    expect(through).toBeLessThanOrEqual(CLICKS_PER_MINUTE + 1); // a token may come back while the test runs
  }, 60_000);

  it("a customer's calls to the customer account routes: the customer's burst across both processes", async () => {
    const customerId = "7100000001";
    const token = await mintCustomerToken(customerId);
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 2 * CUSTOMER_BURST; i++) {
      const res = await fetch(`${apps[i % 2].url}/customer-account/connection`, {
        headers: {
          Authorization: `Bearer ${token}`,
          Origin: "https://extensions.shopifycdn.com",
          // Shopify's library turns bots away (410): a customer's browser says what it is.
          "User-Agent":
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        },
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(new Set(statuses)).toEqual(new Set([200, 429]));
    const through = statuses.filter((s) => s === 200).length;
    expect(through).toBeGreaterThanOrEqual(CUSTOMER_BURST);
    expect(through).toBeLessThanOrEqual(CUSTOMER_BURST + seconds); // one back a second
  }, 60_000);
});
