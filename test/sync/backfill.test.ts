// Backfill when a customer connects: their recent orders come from the Admin GraphQL API (MSW stands in for
// Shopify), page by page, into the same queue; progress is the Backfill row.
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { describe, expect, it, vi } from "vitest";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { onCustomerConnected } from "~/sync/on-connect.server";
import { drainJobs, startWorker, type SyncDeps } from "~/sync/job-runner.server";
import { TEST_OFFLINE_TOKEN } from "../helpers/shopify";
import { connectCustomer, importCounts, newId, SHOP } from "./support";
import { withSyncHarness } from "../helpers/sync-harness";
import { emulatorState } from "../helpers/emulator";
import { QueryCostLimiter } from "../../dev/admin-api/cost";
import { orderHandlers } from "../../dev/admin-api/orders";
import { DEMO_PRODUCTS, orderHistory, WHOLESALE_CUSTOMER_ID, type PastOrder } from "../../dev/demo-store";
import { AdminCostBudget } from "~/shopify/admin-cost-budget.server";

const admin = graphql.link(`https://${SHOP}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`);
const mock = setupServer();

const CUSTOMER = "7100000001";

interface GqlOrder {
  id: string;
  createdAt: string;
  currencyCode: string;
  customer: { id: string };
  lineItems: {
    nodes: {
      id: string;
      title: string;
      name: string;
      quantity: number;
      currentQuantity: number;
      sku: string;
      product: { id: string };
    }[];
    pageInfo?: { hasNextPage: boolean; endCursor: string | null };
  };
  fulfillments: {
    id: string;
    createdAt: string;
    status: string;
    trackingInfo: { company: string; number: string }[];
    fulfillmentLineItems: { nodes: { quantity: number; lineItem: { id: string } }[] };
  }[];
}

function gqlOrder(i: number, withFulfillment = false): GqlOrder {
  const id = newId();
  const lineId = newId();
  return {
    id: `gid://shopify/Order/${id}`,
    createdAt: `2026-11-${String(1 + (i % 20)).padStart(2, "0")}T12:00:00Z`,
    currencyCode: "EUR",
    customer: { id: `gid://shopify/Customer/${CUSTOMER}` },
    lineItems: {
      nodes: [
        {
          id: `gid://shopify/LineItem/${lineId}`,
          title: `Mug ${i}`,
          name: `Mug ${i}`,
          quantity: 2,
          currentQuantity: 2,
          sku: `MUG-${i}`,
          product: { id: "gid://shopify/Product/632910392" },
        },
      ],
    },
    fulfillments: withFulfillment
      ? [
          {
            id: `gid://shopify/Fulfillment/${newId()}`,
            createdAt: "2026-11-21T09:00:00Z",
            status: "SUCCESS",
            trackingInfo: [{ company: "DHL", number: "JD0001" }],
            fulfillmentLineItems: { nodes: [{ quantity: 2, lineItem: { id: `gid://shopify/LineItem/${lineId}` } }] },
          },
        ]
      : [],
  };
}

/** Serves `orders` 50 at a time, cursors being offsets; records every query's variables. */
function serveOrders(orders: GqlOrder[], seen: Record<string, unknown>[], failFirst = 0) {
  let failures = failFirst;
  mock.use(
    admin.query("SyncBackfillOrders", ({ variables, request }) => {
      expect(request.headers.get("X-Shopify-Access-Token")).toBe(TEST_OFFLINE_TOKEN); // decrypted, never the stored ciphertext
      seen.push(variables);
      if (failures > 0) {
        failures -= 1;
        return HttpResponse.json({ errors: [{ message: "Throttled" }] });
      }
      const start = variables.after ? Number(variables.after) : 0;
      const nodes = orders.slice(start, start + Number(variables.first));
      const end = start + nodes.length;
      return HttpResponse.json({
        data: {
          ordersCount: { count: orders.length },
          orders: {
            pageInfo: { hasNextPage: end < orders.length, endCursor: nodes.length ? String(end) : null },
            nodes,
          },
        },
      });
    }),
  );
}

const sync = withSyncHarness({ shopify: mock });
const settle = (rounds = 30) => sync.settle(rounds);

describe("backfill on connect", () => {
  it("does not send an order snapshot older than what a webhook already brought", async () => {
    const order = { ...gqlOrder(0), updatedAt: "2026-11-20T15:00:00Z" }; // fetched before the edit below
    serveOrders([order], []);
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const lineId = Number(order.lineItems.nodes[0].id.split("/").pop());
    const edited = {
      id: Number(order.id.split("/").pop()),
      created_at: order.createdAt,
      updated_at: "2026-11-20T15:05:00Z",
      currency: "EUR",
      customer: { id: Number(CUSTOMER) },
      line_items: [
        {
          id: lineId,
          title: "Mug 0",
          name: "Mug 0",
          quantity: 2,
          current_quantity: 1,
          sku: "MUG-0",
          product_id: 632910392,
        },
      ],
    };
    await recordSyncDelivery(sync.db.prisma, {
      shop: SHOP,
      topic: "ORDERS_UPDATED",
      eventId: "evt-edit",
      payload: edited,
    });
    await settle();
    await onCustomerConnected(sync.db.prisma, { shop: SHOP, customerId: CUSTOMER }, { now: sync.clock.now() });
    await settle();
    const state = await emulatorState(sync.emulator);
    expect(importCounts(state, "/api/v1/orders").get(String(edited.id))).toBe(1);
    expect((state.orders[0].body as { lines: { quantity: number }[] }).lines[0].quantity).toBe(1);
    expect(await sync.db.prisma.backfill.findFirstOrThrow()).toMatchObject({ status: "done" });
  });

  it("does not send again an order a webhook already imported in the same version, written with another offset", async () => {
    // Shopify's webhooks write dates in the shop's zone, the Admin API in UTC: same instant, other bytes.
    const order = { ...gqlOrder(1), createdAt: "2026-11-20T17:00:00Z", updatedAt: "2026-11-20T17:30:00Z" };
    serveOrders([order], []);
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const line = order.lineItems.nodes[0];
    await recordSyncDelivery(sync.db.prisma, {
      shop: SHOP,
      topic: "ORDERS_CREATE",
      eventId: "evt-same-version",
      payload: {
        id: Number(order.id.split("/").pop()),
        created_at: "2026-11-20T12:00:00-05:00",
        updated_at: "2026-11-20T12:30:00-05:00",
        currency: "EUR",
        customer: { id: Number(CUSTOMER) },
        line_items: [
          {
            id: Number(line.id.split("/").pop()),
            title: line.title,
            name: line.name,
            quantity: 2,
            current_quantity: 2,
            sku: line.sku,
            product_id: 632910392,
          },
        ],
      },
    });
    await settle();
    await onCustomerConnected(sync.db.prisma, { shop: SHOP, customerId: CUSTOMER }, { now: sync.clock.now() });
    await settle();
    const state = await emulatorState(sync.emulator);
    expect(importCounts(state, "/api/v1/orders").get(order.id.split("/").pop()!)).toBe(1);
    expect(await sync.db.prisma.backfill.findFirstOrThrow({ orderBy: { createdAt: "desc" } })).toMatchObject({
      status: "done",
    });
  });

  it("imports the customer's orders of the last 60 days, page by page, with progress", async () => {
    const orders = Array.from({ length: 120 }, (_, i) => gqlOrder(i, i < 3));
    const seen: Record<string, unknown>[] = [];
    serveOrders(orders, seen);
    // One of them already came by webhook (same content): the backfill must not import it twice.
    const first = orders[0];
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    await recordSyncDelivery(sync.db.prisma, {
      shop: SHOP,
      topic: "ORDERS_CREATE",
      eventId: "evt-before",
      payload: {
        id: Number(first.id.split("/").pop()),
        created_at: first.createdAt,
        currency: "EUR",
        customer: { id: Number(CUSTOMER) },
        line_items: [
          {
            id: Number(first.lineItems.nodes[0].id.split("/").pop()),
            title: "Mug 0",
            name: "Mug 0",
            quantity: 2,
            current_quantity: 2,
            sku: "MUG-0",
            product_id: 632910392,
          },
        ],
      },
    });
    await drainJobs(sync.deps);

    const result = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { now: sync.clock.now() },
    );
    expect(result.backfillId).toBeTruthy();
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: result.backfillId } })).toMatchObject({
      status: "running",
      days: 60,
      total: 0,
      queued: 0,
    });

    // First page only: progress shows 5 of 120 (pages are sized under Shopify's query cost limit).
    await drainJobs({ ...sync.deps }, { maxRounds: 1, concurrency: 1 });
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: result.backfillId } })).toMatchObject({
      status: "running",
      total: 120,
      queued: 5,
    });

    await settle(100);
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: result.backfillId } })).toMatchObject({
      status: "done",
      total: 120,
      queued: 120,
    });
    expect(seen).toHaveLength(24);
    const since = new Date(sync.clock.ms - 60 * 86_400_000).toISOString().slice(0, 10);
    expect(String(seen[0].query)).toMatch(new RegExp(`^customer_id:${CUSTOMER} created_at:>='${since}`));
    expect(seen.map((v) => v.after)).toEqual([null, ...Array.from({ length: 23 }, (_, i) => String(5 * (i + 1)))]);

    const state = await emulatorState(sync.emulator);
    const counts = importCounts(state, "/api/v1/orders");
    expect(counts.size).toBe(120);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(importCounts(state, "/api/v1/shipments").size).toBe(3);
    expect(state.shipments[0].body).toMatchObject({ carrier: "DHL", tracking_number: "JD0001" });
    expect(await sync.db.prisma.syncRecord.count({ where: { state: "imported" } })).toBe(123);
  }, 180_000);

  it("fetches every line of an order with more than one page of lines", async () => {
    const big = gqlOrder(7);
    const lines = Array.from({ length: 300 }, (_, i) => ({
      ...big.lineItems.nodes[0],
      id: `gid://shopify/LineItem/${newId()}`,
      title: `Line ${i}`,
    }));
    const seen: Record<string, unknown>[] = [];
    serveOrders(
      [
        {
          ...big,
          lineItems: {
            nodes: lines.slice(0, 250),
            pageInfo: { hasNextPage: true, endCursor: "250" },
          } as GqlOrder["lineItems"],
        },
      ],
      seen,
    );
    mock.use(
      admin.query("SyncBackfillOrderLines", ({ variables }) => {
        expect(variables).toEqual({ id: big.id, first: 250, after: "250" });
        return HttpResponse.json({
          data: {
            order: { lineItems: { nodes: lines.slice(250), pageInfo: { hasNextPage: false, endCursor: null } } },
          },
        });
      }),
    );
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    await onCustomerConnected(sync.db.prisma, { shop: SHOP, customerId: CUSTOMER }, { now: sync.clock.now() });
    await settle();
    const state = await emulatorState(sync.emulator);
    expect((state.orders[0].body as { lines: unknown[] }).lines).toHaveLength(300);
  }, 60_000);

  it("imports the demo's wholesale customer, 60 orders of 300 lines, within Shopify's query cost limits, using the bucket it is given", async () => {
    // The demo's own Admin API handlers and order history, pricing and throttling as Shopify does, on the test's
    // clock; the backfill waits on that clock too, so 75,000 points at 100 a second take minutes of it, not of the test's time.
    const limiter = new QueryCostLimiter({ now: () => sync.clock.ms });
    const CUSTOMER = WHOLESALE_CUSTOMER_ID;
    const history = orderHistory(sync.clock.now()).filter((o) => o.customerId === CUSTOMER);
    expect(history).toHaveLength(60);
    expect(history.every((o) => o.lines.length === 300 && o.fulfillment)).toBe(true);
    mock.use(...orderHandlers({ limiter }));
    const paced: SyncDeps = {
      ...sync.deps,
      sleep: async (ms) => void sync.clock.advance(ms),
      adminBudget: new AdminCostBudget(),
    };
    // Another app process has just emptied the shop's bucket: the first answer is THROTTLED, and waited out.
    limiter.take(SHOP, limiter.maximumAvailable);
    const started = sync.clock.ms;
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const { backfillId } = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { now: sync.clock.now() },
    );
    for (let i = 0; i < 300; i++) {
      if ((await drainJobs(paced)) > 0) continue;
      const next = await sync.db.prisma.job.findFirst({ where: { status: "queued" }, orderBy: { runAt: "asc" } });
      if (!next) break;
      sync.clock.ms = next.runAt.getTime() + 1;
    }
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } })).toMatchObject({
      status: "done",
      total: 60,
      queued: 60,
      error: null,
    });
    const state = await emulatorState(sync.emulator);
    expect(importCounts(state, "/api/v1/orders").size).toBe(60);
    expect(state.orders.every((o) => (o.body as { lines: unknown[] }).lines.length === 300)).toBe(true);
    expect(importCounts(state, "/api/v1/shipments").size).toBe(60);
    expect(state.shipments.every((s) => (s.body as { lines: unknown[] }).lines.length === 300)).toBe(true);
    expect(limiter.maxCostExceeded).toBe(0);
    expect(limiter.throttled).toBe(1);
    // The bucket restored 100 points a second from empty: the backfill used most of them.
    const restored = ((sync.clock.ms - started) / 1000) * limiter.restoreRate;
    expect(limiter.spent).toBeGreaterThan(60 * 300 * 4);
    expect(limiter.spent / restored).toBeGreaterThan(0.8);
  }, 240_000);

  it("splits a page Shopify refuses as too costly", async () => {
    const limiter = new QueryCostLimiter({ now: () => sync.clock.ms });
    const history: PastOrder[] = Array.from({ length: 3 }, (_, i) => ({
      id: String(5_700_000_000 + i),
      name: `#${4000 + i}`,
      customerId: CUSTOMER,
      createdAt: new Date(sync.clock.ms - (10 - i) * 86_400_000).toISOString(),
      lines: [{ id: String(9_400_000_000 + i), product: DEMO_PRODUCTS[0], quantity: 1 }],
      fulfillment: null,
    }));
    mock.use(...orderHandlers({ orders: () => history, limiter }));
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const { backfillId } = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { now: sync.clock.now() },
    );
    // A page job as an older version queued it: sizes far over the limit.
    const job = await sync.db.prisma.job.findFirstOrThrow({ where: { kind: "backfill" } });
    const sizes = { first: 50, lines: 250, fulfillments: 50, fulfillmentLines: 250 };
    await sync.db.prisma.job.update({
      where: { id: job.id },
      data: { payload: { ...(job.payload as object), sizes } },
    });
    // Its own view of the bucket and the test's clock: nothing of this test's bucket reaches the next ones.
    sync.deps = { ...sync.deps, sleep: async (ms) => void sync.clock.advance(ms), adminBudget: new AdminCostBudget() };
    await settle();
    expect(limiter.maxCostExceeded).toBeGreaterThan(0);
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } })).toMatchObject({
      status: "done",
      queued: 3,
      error: null,
    });
    expect(importCounts(await emulatorState(sync.emulator), "/api/v1/orders").size).toBe(3);
  }, 60_000);

  it("works against the offline session as production stores it (encrypted at rest)", async () => {
    const stored = await sync.db.prisma.session.findUniqueOrThrow({ where: { id: `offline_${SHOP}` } });
    expect(stored.accessToken).not.toContain(TEST_OFFLINE_TOKEN);
    const seen: Record<string, unknown>[] = [];
    serveOrders([gqlOrder(1)], seen); // its handler checks the token Shopify receives is the plain one
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const { backfillId } = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { now: sync.clock.now() },
    );
    await settle();
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } })).toMatchObject({
      status: "done",
      queued: 1,
    });
  });

  it("uses the shop's backfill window and retries an Admin API error", async () => {
    await sync.db.prisma.shopSettings.create({ data: { shop: SHOP, backfillDays: 14 } });
    const seen: Record<string, unknown>[] = [];
    serveOrders([gqlOrder(1)], seen, 1);
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const { backfillId } = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { now: sync.clock.now() },
    );
    await drainJobs(sync.deps);
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } })).toMatchObject({
      status: "running",
      days: 14,
      error: "Retrying: Shopify Admin API: Throttled",
    });
    await settle();
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } })).toMatchObject({
      status: "done",
      total: 1,
      queued: 1,
      error: null,
    });
    expect(String(seen[0].query)).toContain(
      `created_at:>='${new Date(sync.clock.ms - 14 * 86_400_000).toISOString().slice(0, 10)}`,
    );
    expect((await emulatorState(sync.emulator)).orders).toHaveLength(1);
  }, 60_000);

  it("says plainly when Shopify's Admin API cannot be reached", async () => {
    mock.use(admin.query("SyncBackfillOrders", () => HttpResponse.error()));
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const { backfillId } = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { now: sync.clock.now() },
    );
    await drainJobs(sync.deps);
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } })).toMatchObject({
      status: "running",
      error: "Retrying: Shopify's Admin API could not be reached",
    });
  });
});

describe("a worker stopping during a backfill", () => {
  it("hands back a page that waits for Shopify's query budget at once (no lease left to expire), and the page runs again", async () => {
    // Real time here: the page really waits (seconds) for the points an emptied bucket restores.
    const limiter = new QueryCostLimiter();
    mock.use(...orderHandlers({ limiter }));
    limiter.take(SHOP, limiter.maximumAvailable);
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    const { backfillId } = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { now: sync.clock.now() },
    );
    const worker = startWorker({ ...sync.deps, adminBudget: new AdminCostBudget() }, { pollMs: 50 });
    await vi.waitFor(async () => expect(limiter.throttled).toBeGreaterThan(0), { timeout: 10_000, interval: 20 }); // the page is waiting now

    const stopping = Date.now();
    await worker.stop();
    expect(Date.now() - stopping).toBeLessThan(2_000); // not the seconds the page would still have waited
    const job = await sync.db.prisma.job.findFirstOrThrow({ where: { kind: "backfill" } });
    expect(job).toMatchObject({ status: "queued", leasedBy: null, leaseUntil: null, attempts: 0 });
    expect(job.runAt.getTime()).toBeLessThanOrEqual(Date.now());
    // Not a failure the merchant sees: the backfill is still running, with no error.
    expect(await sync.db.prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } })).toMatchObject({
      status: "running",
      error: null,
    });
  }, 30_000);
});
