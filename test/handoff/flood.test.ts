// Continue cart under a flood: the per-address budget keys on the address Shopify's app proxy saw (a shopper's own
// X-Forwarded-For entries buy nothing), the budget's memory stays bounded without forgetting who is throttled, a
// shop-wide cap holds across many addresses, handoffs share the service's rate budget with the imports (neither
// the service's 429s nor a starved import queue), and no refusal writes a row. Through the app's build over HTTP
// where the route matters, in process where the imports must share the very scheduler the handoffs use.
import { randomUUID } from "node:crypto";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { createCatalog } from "../../dev/admin-api/catalog";
import { QueryCostLimiter } from "../../dev/admin-api/cost";
import { adminApiHandlers } from "../../dev/admin-api/handlers";
import { DEFAULT_CONFIG } from "../../emulator/config";
import { emulatorInternals, startEmulator, type RunningEmulator } from "../../emulator/server";
import { saveSettings } from "~/connections/settings-store.server";
import { setDatabase } from "~/db.server";
import { continueCart, INTERACTIVE_SERVICE_DEPS, IP_POLICY, type FlowResult } from "~/handoff/flow.server";
import { Budget, DEFAULT_MAX_KEYS } from "~/lib/budget";
import { memoryBudgets } from "~/lib/shared-budget.server";
import { clientAddress, forwardedAddress } from "~/lib/client-address";
import {
  createServiceContext,
  importOrder,
  serviceBaseUrl,
  serviceOrigins,
  type ServiceSettings,
} from "~/service/client.server";
import { clientKeyOf, interactiveSlot, RateScheduler, scheduledFetch } from "~/service/client.server";
import { emulatorState } from "../helpers/emulator";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { adminGraphqlViaShopify, proxyUrl, TEST_SHOP } from "../helpers/shopify";

const SHOP_SPOOF = "spoof-test.myshopify.com";
const SHOP_CAP = "cap-test.myshopify.com";
const SHOP_CAP_PER_MINUTE = 80;
const MUG = "41000000001";

const catalog = createCatalog();
// Shopify's own Admin API limit is not what these tests are about: a bucket no flood here empties.
const mock = setupServer(
  ...adminApiHandlers(catalog, TEST_SHOP, new QueryCostLimiter({ maximumAvailable: 1e9, restoreRate: 1e9 })),
);
beforeAll(() => mock.listen({ onUnhandledRequest: "bypass" })); // before the app: the library keeps the fetch it finds
const h = withHarness({
  shops: [TEST_SHOP],
  app: { env: { TRUSTED_PROXY_HOPS: "1", HANDOFF_SHOP_PER_MINUTE: String(SHOP_CAP_PER_MINUTE) } },
});

/** An emulator whose service allows `capacity` requests, leaking `perSecond`. */
async function limitedEmulator(capacity: number, perSecond: number): Promise<RunningEmulator> {
  return startEmulator({
    port: 0,
    config: { ...DEFAULT_CONFIG, rate_limit: { capacity, leak_per_second: perSecond } },
  });
}

/**
 * The block script's POST as it reaches the app behind one load balancer: the shopper's own X-Forwarded-For
 * entries (anything), then the shopper's address appended by Shopify's proxy, then Shopify's appended by ours.
 */
async function post(shop: string, shopper: string, options: { spoof?: string; lines?: unknown[] } = {}) {
  const xff = [options.spoof, shopper, "203.0.113.250"].filter(Boolean).join(", ");
  const res = await fetch(proxyUrl(h.app.url, "/cart", { shop, customerId: null }), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "x-forwarded-for": xff },
    body: JSON.stringify({ token: `tok-${randomUUID()}`, locale: "en", lines: options.lines ?? [] }),
  });
  const body = (await res.json()) as { ok: boolean; code?: string; message?: string };
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
}

const rows = (shop: string) => h.db.prisma.cartHandoff.count({ where: { shop } });

describe("the shopper's address", () => {
  it("is the entry Shopify's proxy appended, counted from the right, never the client-written leftmost", () => {
    const request = (xff: string) =>
      new Request("https://app.example/proxy/cart", { headers: { "x-forwarded-for": xff } });
    // Behind one load balancer: [shopper's own…, shopper (by Shopify), Shopify (by our balancer)].
    expect(
      clientAddress(request("1.1.1.1, 198.51.100.7, 203.0.113.250"), "10.0.0.2", { appProxy: true, trustedHops: 1 }),
    ).toBe("198.51.100.7");
    expect(
      clientAddress(request("9.9.9.9, 8.8.8.8, 198.51.100.7, 203.0.113.250"), "10.0.0.2", {
        appProxy: true,
        trustedHops: 1,
      }),
    ).toBe("198.51.100.7");
    // No balancer of ours: Shopify's proxy is the peer, its entry the rightmost.
    expect(clientAddress(request("1.1.1.1, 198.51.100.7"), "203.0.113.250", { appProxy: true, trustedHops: 0 })).toBe(
      "198.51.100.7",
    );
    // Zero hops for the address in general: the socket's peer, whatever the header says.
    expect(forwardedAddress("1.1.1.1", "::ffff:192.0.2.1", 0)).toBe("192.0.2.1");
    // Nothing forwarded at all (the app reached directly): the peer.
    expect(forwardedAddress(null, "192.0.2.9", 2)).toBe("192.0.2.9");
  });

  it("over HTTP: a new spoofed leftmost entry on every request buys no new budget", async () => {
    const shopper = "198.51.100.7";
    const burst = await Promise.all(
      Array.from({ length: IP_POLICY.burst + 15 }, (_, i) =>
        post(SHOP_SPOOF, shopper, { spoof: `10.9.${i >> 8}.${i & 255}` }),
      ),
    );
    const refused = burst.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(10); // 60 at once, then one a second regained
    for (const r of refused) {
      expect(r.body).toMatchObject({ ok: false, code: "busy", message: expect.stringContaining("Too many attempts") });
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    // Another shopper of the same store is not held back by it.
    expect((await post(SHOP_SPOOF, "198.51.100.8")).status).toBe(400); // its empty cart, not a refusal
  });
});

describe("the budget's memory", () => {
  it("stays bounded by evicting the least recently used key, and a throttled key keeps its state through a flood of new ones", () => {
    let t = 1_000_000;
    const budget = new Budget({ now: () => t });
    const throttled = [{ key: "ip:throttled", policy: IP_POLICY }];
    for (let i = 0; i < IP_POLICY.burst; i++) expect(budget.take(throttled).ok).toBe(true);
    expect(budget.take(throttled).ok).toBe(false);
    // A flood of fresh keys (new carts, new addresses), more than the map holds; the throttled address keeps
    // knocking meanwhile, so it is among the recently used.
    for (let i = 0; i < DEFAULT_MAX_KEYS + 10_000; i++) {
      budget.take([{ key: `cart:${i}`, policy: IP_POLICY }]);
      if (i % 5_000 === 0) expect(budget.take(throttled).ok).toBe(false);
      t += 0.01; // 100 ms over the whole flood: not enough for a token back
    }
    expect(budget.size).toBeLessThanOrEqual(DEFAULT_MAX_KEYS);
    expect(budget.take(throttled).ok).toBe(false); // not reset by the flood
    expect(budget.take([{ key: `cart:${DEFAULT_MAX_KEYS + 9_999}`, policy: IP_POLICY }]).ok).toBe(true); // recent keys kept
  });

  it("evicts only what is least recently used", () => {
    const budget = new Budget({ now: () => 0, maxKeys: 3 });
    const policy = { burst: 1, refillMs: 60_000 };
    for (const key of ["a", "b", "c"]) expect(budget.take([{ key, policy }]).ok).toBe(true);
    expect(budget.take([{ key: "a", policy }]).ok).toBe(false); // touches a: b is now the oldest
    expect(budget.take([{ key: "d", policy }]).ok).toBe(true); // b goes
    expect(budget.size).toBe(3);
    expect(budget.take([{ key: "a", policy }]).ok).toBe(false);
    expect(budget.take([{ key: "c", policy }]).ok).toBe(false);
    expect(budget.take([{ key: "b", policy }]).ok).toBe(true); // forgotten: a fresh bucket
  });
});

describe("the shop-wide cap", () => {
  it("refuses beyond the shop's handoffs per minute, across many addresses, and the refusals write no row", async () => {
    const before = await rows(SHOP_CAP);
    const answers = await Promise.all(
      Array.from({ length: SHOP_CAP_PER_MINUTE + 20 }, (_, i) => post(SHOP_CAP, `198.18.${i >> 8}.${i & 255}`)),
    );
    const refused = answers.filter((a) => a.status === 429);
    const accepted = answers.filter((a) => a.status !== 429);
    expect(refused.length).toBeGreaterThanOrEqual(15); // a few may pass on tokens regained during the burst
    expect(accepted.length).toBeLessThanOrEqual(SHOP_CAP_PER_MINUTE + 5);
    for (const r of refused) {
      expect(r.body).toMatchObject({ code: "busy", message: expect.stringContaining("Too many attempts") });
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    // Each accepted request (an empty cart here) has its record; the refused ones none.
    expect(accepted.every((a) => a.status === 400)).toBe(true);
    expect((await rows(SHOP_CAP)) - before).toBe(accepted.length);
  });
});

describe("the service's rate budget, shared with the imports", () => {
  it("over HTTP: a burst of handoffs never earns a 429 from the service; those without a slot are refused at once, with no row", async () => {
    // A small budget that barely refills during the test: 10 requests, one back every 5 s.
    const emulator = await limitedEmulator(10, 0.2);
    try {
      expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(emulator.url))).ok).toBe(true);
      const lines = [{ variant_id: MUG, quantity: 1 }];
      // The first answer tells the app's scheduler the service's budget (RateLimit-Policy, RateLimit).
      expect((await post(TEST_SHOP, "198.51.100.20", { lines })).status).toBe(200);
      const before = await rows(TEST_SHOP);
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(TEST_SHOP, `198.51.100.${30 + i}`, { lines })),
      );
      const seconds = (Date.now() - started) / 1000;
      const created = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
      expect(created.length).toBeGreaterThanOrEqual(5);
      expect(created.length).toBeLessThanOrEqual(8 + Math.ceil(seconds * 0.2));
      expect(refused.length).toBeGreaterThanOrEqual(5);
      for (const r of refused) {
        expect(r.body).toMatchObject({ code: "rate_limited", message: expect.stringContaining("busy") });
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
      }
      const statuses = (await emulatorState(emulator.url)).requests.map((r) => r.status);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      // Rows: one per created handoff, none for the refused.
      expect((await rows(TEST_SHOP)) - before).toBe(created.length);
      expect(await h.db.prisma.cartHandoff.count({ where: { shop: TEST_SHOP, state: "failed" } })).toBe(0);
    } finally {
      await emulator.close();
    }
  }, 60_000);

  it("in process: a flood of handoffs while imports queue: no 429 for anyone, every import goes through at no less than half the rate, handoffs still get their share", async () => {
    // 10 requests, 10 a second: imports alone would take about 4 s for 40.
    const emulator = await limitedEmulator(10, 10);
    setDatabase(h.db); // Shopify's library (the Admin API) loads the offline session through the app's storage
    const adminGraphql = await adminGraphqlViaShopify();
    try {
      const settings: ServiceSettings = emulatorSettings(emulator.url);
      const scheduler = new RateScheduler();
      const client = clientKeyOf(serviceBaseUrl(settings), settings.clientId);
      const tokens = emulatorInternals(emulator).oauth.issueTokens(
        { id: randomUUID(), clientId: settings.clientId, workspaceId: "ws-flood", revoked: false },
        ["orders:write", "shipments:write"],
        Date.now(),
      );
      const store = new MemoryGrantStore({
        accessToken: tokens.access_token,
        accessTokenExpiresAt: new Date(Date.now() + 3_600_000),
        refreshToken: tokens.refresh_token,
        scopes: tokens.scope.split(" "),
        workspaceId: "ws-flood",
        boundOrigins: serviceOrigins(settings),
      });
      // The worker's way: every import waits for its slot in the scheduler (app/runtime/worker-deps.server.ts).
      const imports = createServiceContext(settings, {
        fetch: scheduledFetch(scheduler, client, TEST_SHOP),
        retry: { maxAttempts: 1 },
      });
      const importOne = (i: number) =>
        importOrder(
          imports,
          store,
          {
            external_order_id: `flood-order-${i}`,
            ordered_at: "2026-11-01T10:00:00Z",
            currency: "EUR",
            lines: [{ external_line_id: "line-1", title: "Blue mug", quantity: 1 }],
          },
          { idempotencyKey: `flood-order-${i}` },
        );
      expect((await importOne(0)).ok).toBe(true); // the scheduler learns the budget

      const budget = memoryBudgets();
      const handoff = (i: number): Promise<FlowResult> =>
        continueCart(
          {
            prisma: h.db.prisma,
            graphql: adminGraphql,
            loadSettings: async () => ({ enabled: true, expirySeconds: 1800, service: settings }),
            budget,
            shopPerMinute: 1_000_000, // this test is about the service's budget, not the shop's cap
            gate: { open: (s, inner) => interactiveSlot(scheduler, clientKeyOf(serviceBaseUrl(s), s.clientId), inner) },
            service: INTERACTIVE_SERVICE_DEPS,
          },
          {
            shop: TEST_SHOP,
            customerId: null,
            ip: `198.51.100.${i % 250}`,
            raw: { token: `flood-${randomUUID()}`, locale: "en", lines: [{ variant_id: MUG, quantity: 1 + (i % 5) }] },
          },
        );

      const rowsBefore = await rows(TEST_SHOP);
      const started = Date.now();
      const queued = Array.from({ length: 40 }, (_, i) =>
        importOne(i + 1).then((o) => ({ ok: o.ok, at: Date.now() - started })),
      );
      const flood: Promise<FlowResult>[] = [];
      for (let i = 0; Date.now() - started < 3_000; i++) {
        flood.push(handoff(i));
        await new Promise((r) => setTimeout(r, 20));
      }
      const imported = await Promise.all(queued);
      const handoffs = await Promise.all(flood);
      const importsDoneMs = Math.max(...imported.map((o) => o.at));

      expect(imported.every((o) => o.ok)).toBe(true);
      const requests = (await emulatorState(emulator.url)).requests;
      expect(requests.filter((r) => r.status === 429)).toEqual([]); // neither imports nor handoffs met the service's limit
      // 40 imports at no less than half of 10 a second: 8 s at most, plus the rest of the flood's own slots.
      expect(importsDoneMs).toBeLessThan(10_000);
      const created = handoffs.filter((r) => r.ok);
      const refused = handoffs.filter((r): r is Extract<FlowResult, { ok: false }> => !r.ok);
      expect(created.length).toBeGreaterThanOrEqual(5); // handoffs were not starved by the queue either
      expect(refused.every((r) => r.status === 429 && r.code === "rate_limited" && (r.retryAfterMs ?? 0) > 0)).toBe(
        true,
      );
      expect((await rows(TEST_SHOP)) - rowsBefore).toBe(created.length); // refusals wrote nothing
      console.log(
        `flood: ${handoffs.length} handoff requests, ${created.length} created, ${refused.length} refused; 40 imports done in ${importsDoneMs} ms`,
      );
    } finally {
      await emulator.close();
    }
  }, 60_000);
});

afterAll(() => mock.close());
