// Backfill at launch scale: many customers connecting in one shop share one Shopify bulk operation (the Admin API
// stand-in, dev/admin-api/bulk.ts, runs it as Shopify documents it); its JSONL is read as a stream, lines joined to
// their orders in any order, each order routed to its customer's backfill; orders of customers who are not
// connected never reach the database. Every fault Shopify documents ends in a plain reason and a new run.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { http } from "msw";
import { setupServer } from "msw/node";
import { onCustomerConnected } from "~/sync/on-connect.server";
import { drainJobs } from "~/sync/job-runner.server";
import { receiveBulkFinish } from "~/sync/bulk-finish.server";
import { BULK_POLL_MS } from "~/sync/bulk-backfill.server";
import { bulkOrdersQuery } from "~/sync/bulk-queries.server";
import { env } from "~/env.server";
import { connectCustomer, importCounts, newId, SHOP } from "./support";
import { withSyncHarness } from "../helpers/sync-harness";
import { emulatorState } from "../helpers/emulator";
import { QueryCostLimiter } from "../../dev/admin-api/cost";
import { orderHandlers } from "../../dev/admin-api/orders";
import { BulkOperations, type BulkOptions } from "../../dev/admin-api/bulk";
import { bulkQueryProblems } from "../../dev/admin-api/bulk-query";
import { DEMO_PRODUCTS, type PastOrder } from "../../dev/demo-store";

const mock = setupServer();
const APP = "https://app.bulk-test.example";
const CONNECTED = ["7400000001", "7400000002", "7400000003"];
const STRANGER = "7400000099"; // has orders in the shop, never connects

let orders: PastOrder[];
let bulk: BulkOperations;

/** `count` orders of `customerId`, each with `lines` lines, the first shipped. */
function pastOrders(customerId: string, count: number, lines = 3): PastOrder[] {
  return Array.from({ length: count }, (_, i) => {
    const id = newId();
    const createdAt = new Date(Date.now() - 10 * 86_400_000 - i * 60_000).toISOString();
    return {
      id,
      name: `#B${id.slice(-5)}`,
      customerId,
      createdAt,
      lines: Array.from({ length: lines }, (_, j) => ({
        id: newId(),
        product: DEMO_PRODUCTS[j % DEMO_PRODUCTS.length],
        quantity: 1 + j,
      })),
      fulfillment: i === 0 ? { id: newId(), createdAt, company: "DHL", number: `JD${id.slice(-6)}` } : null,
    };
  });
}

function standIn(options: Partial<BulkOptions> = {}) {
  const limiter = new QueryCostLimiter({ now: () => sync.clock.ms });
  bulk = new BulkOperations({
    orders: () => orders,
    limiter,
    now: () => sync.clock.ms,
    webhook: null,
    shuffleWindow: 1000,
    ...options,
  });
  mock.use(...bulk.handlers(), ...orderHandlers({ orders: () => orders, limiter }));
  return bulk;
}

const sync = withSyncHarness({ shopify: mock });
afterEach(() => bulk?.close());
beforeEach(() => {
  orders = [...CONNECTED.flatMap((c) => pastOrders(c, 4)), ...pastOrders(STRANGER, 5)];
});

/** The launch: every customer of CONNECTED connects (the third makes it a bulk backfill for all three). */
async function launch() {
  for (const c of CONNECTED) {
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, c);
    await onCustomerConnected(sync.db.prisma, { shop: SHOP, customerId: c }, { now: sync.clock.now() });
  }
}

/** Runs due jobs; when none is due, moves the clock to the next one (at most `rounds` times). */
const settle = (rounds = 40, until?: () => Promise<boolean>) => sync.settle(rounds, { until });

/** Runs jobs until the shop's bulk operation has started (it is then RUNNING at the stand-in). */
async function untilOperationStarted() {
  await settle(10, async () => (await sync.db.prisma.bulkRun.count({ where: { operationId: { not: null } } })) > 0);
  const run = await sync.db.prisma.bulkRun.findFirstOrThrow({ where: { operationId: { not: null } } });
  return run.operationId!;
}

const latestOperation = () => [...bulk.operations.keys()].at(-1)!;
const idsOf = (customerId: string) => orders.filter((o) => o.customerId === customerId).map((o) => o.id);

async function expectEveryConnectedOrderImportedOnce() {
  const counts = importCounts(await emulatorState(sync.emulator), "/api/v1/orders");
  for (const c of CONNECTED) for (const id of idsOf(c)) expect(counts.get(id), `order ${id}`).toBe(1);
  const shipments = importCounts(await emulatorState(sync.emulator), "/api/v1/shipments");
  expect(shipments.size).toBe(CONNECTED.length);
  for (const count of shipments.values()) expect(count).toBe(1);
}

async function expectNothingOfTheStranger() {
  const ids = idsOf(STRANGER);
  expect(
    await sync.db.prisma.syncRecord.count({ where: { OR: [{ customerId: STRANGER }, { orderId: { in: ids } }] } }),
  ).toBe(0);
  const jobs = await sync.db.prisma.job.findMany({ select: { payload: true } });
  const text = JSON.stringify(jobs);
  for (const id of ids) expect(text).not.toContain(id);
  expect(text).not.toContain(STRANGER);
}

describe("the path a backfill takes", () => {
  it("one customer connecting: paged, as before", async () => {
    standIn();
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CONNECTED[0]);
    await onCustomerConnected(sync.db.prisma, { shop: SHOP, customerId: CONNECTED[0] }, { now: sync.clock.now() });
    await settle();
    expect(bulk.operations.size).toBe(0);
    expect(await sync.db.prisma.backfill.findFirstOrThrow()).toMatchObject({
      path: "paged",
      status: "done",
      queued: 4,
    });
  });

  it("a launch: one shop-wide bulk operation, routed to each connected customer; other customers' orders never stored", async () => {
    standIn({ webhook: { appUrl: APP, secret: env().SHOPIFY_API_SECRET } });
    mock.use(
      http.post(`${APP}/webhooks/bulk_operations/finish`, ({ request }) => receiveBulkFinish(sync.db.prisma, request)),
    );
    await launch();
    const operationId = await untilOperationStarted();
    expect(bulk.operations.size).toBe(1);
    expect(bulk.operations.get(operationId)!.query).toContain("created_at:>=");
    // No paged query was sent for the customers who joined the bulk run.
    expect(await sync.db.prisma.backfill.count({ where: { path: "bulk" } })).toBe(3);

    // Shopify finishes and says so: the run looks at once, long before its next poll.
    await bulk.finish(operationId);
    expect(bulk.delivered[0]).toMatchObject({ admin_graphql_api_id: operationId, status: "completed", type: "query" });
    const due = await sync.db.prisma.job.findFirstOrThrow({ where: { kind: "bulk_backfill", status: "queued" } });
    expect(due.runAt.getTime()).toBeLessThan(sync.clock.ms + BULK_POLL_MS / 2);
    await settle();

    await expectEveryConnectedOrderImportedOnce();
    await expectNothingOfTheStranger();
    const backfills = await sync.db.prisma.backfill.findMany();
    for (const b of backfills)
      expect(b).toMatchObject({ path: "bulk", status: "done", total: 4, queued: 4, error: null });
    const run = await sync.db.prisma.bulkRun.findFirstOrThrow();
    expect(run).toMatchObject({ status: "done", shopifyStatus: "COMPLETED", ordersFound: 12, ordersRead: 12 });
  });

  it("a customer connecting while the launch's operation runs takes the paged path at once", async () => {
    standIn();
    await launch();
    const operationId = await untilOperationStarted();
    const late = "7400000004";
    orders.push(...pastOrders(late, 2));
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, late);
    await onCustomerConnected(sync.db.prisma, { shop: SHOP, customerId: late }, { now: sync.clock.now() });
    await settle(
      10,
      async () => (await sync.db.prisma.backfill.count({ where: { customerId: late, status: "done" } })) > 0,
    );
    expect(await sync.db.prisma.backfill.findFirstOrThrow({ where: { customerId: late } })).toMatchObject({
      path: "paged",
      queued: 2,
    });
    expect(bulk.operations.get(operationId)!.status).not.toBe("COMPLETED");
  });

  it("one very large backfill (over 500 orders on its first page's count) moves to the bulk path", async () => {
    standIn();
    orders = pastOrders(CONNECTED[0], 501, 1);
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CONNECTED[0]);
    await onCustomerConnected(sync.db.prisma, { shop: SHOP, customerId: CONNECTED[0] }, { now: sync.clock.now() });
    const operationId = await untilOperationStarted();
    expect(await sync.db.prisma.backfill.findFirstOrThrow()).toMatchObject({ path: "bulk", total: 501, queued: 0 });
    expect(await sync.db.prisma.job.count({ where: { kind: "order" } })).toBe(0); // the first page was not queued
    await bulk.finish(operationId);
    sync.clock.advance(BULK_POLL_MS + 1);
    await drainJobs(sync.deps, { maxRounds: 1 }); // the bulk job alone (importing 501 orders is tested elsewhere)
    expect(await sync.db.prisma.backfill.findFirstOrThrow()).toMatchObject({ status: "done", queued: 501 });
    expect(await sync.db.prisma.job.count({ where: { kind: "order" } })).toBe(501);
  });

  it("the JSONL is shuffled: child lines come before their parents, and every order is still whole", async () => {
    standIn({ shuffleWindow: 1000 });
    await launch();
    const operationId = await untilOperationStarted();
    await bulk.finish(operationId);
    const view = bulk.view(operationId)!;
    const text = await (await fetch(view.url!)).text();
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; __parentId?: string });
    const position = new Map(lines.map((l, i) => [l.id, i]));
    const early = lines.filter((l, i) => l.__parentId && position.get(l.__parentId)! > i);
    expect(early.length).toBeGreaterThan(0);
    expect(lines.length).toBe(Number(view.objectCount));
    await settle();
    await expectEveryConnectedOrderImportedOnce();
    const state = await emulatorState(sync.emulator);
    for (const o of state.orders) expect((o.body as { lines: unknown[] }).lines).toHaveLength(3);
  });
});

describe("faults", () => {
  it("the finish webhook never arrives: the app polls and finishes", async () => {
    standIn({ webhook: null });
    await launch();
    const operationId = await untilOperationStarted();
    await bulk.finish(operationId);
    await settle();
    await expectEveryConnectedOrderImportedOnce();
    expect(await sync.db.prisma.backfill.count({ where: { status: "done" } })).toBe(3);
  });

  for (const end of ["FAILED", "CANCELED", "EXPIRED"] as const) {
    it(`an operation ${end}: the backfills say why and run again`, async () => {
      standIn();
      await launch();
      const first = await untilOperationStarted();
      if (end === "EXPIRED") {
        await bulk.finish(first);
        bulk.expire(first);
      } else await bulk.finish(first, { status: end, errorCode: "TIMEOUT" });
      await settle(10, async () => bulk.operations.size > 1);
      const words = { FAILED: "failed (timeout)", CANCELED: "was cancelled", EXPIRED: "expired before it was read" }[
        end
      ];
      // The same as data, for the admin's language (Shopify's own error code as Shopify spells it).
      const problem = {
        FAILED: { code: "bulk_failed", shopifyCode: "TIMEOUT" },
        CANCELED: { code: "bulk_cancelled" },
        EXPIRED: { code: "bulk_expired" },
      }[end];
      for (const b of await sync.db.prisma.backfill.findMany())
        expect(b).toMatchObject({
          status: "running",
          error: expect.stringContaining(words),
          errorDetails: { ...problem, again: true },
        });
      expect(await sync.db.prisma.job.count({ where: { kind: "order" } })).toBe(0);
      await bulk.finish(latestOperation());
      await settle();
      await expectEveryConnectedOrderImportedOnce();
      expect(await sync.db.prisma.backfill.count({ where: { status: "done", error: null } })).toBe(3);
    });
  }

  for (const [fault, words] of [
    [{ truncateAtLine: 7 }, "not JSON"],
    [{ malformedLine: 3 }, "not JSON"],
    [{ orphanLine: 2 }, "parent is not in the file"],
  ] as const) {
    it(`a damaged file (${Object.keys(fault)[0]}): a plain reason, nothing half-imported, a new run`, async () => {
      standIn();
      await launch();
      await bulk.finish(await untilOperationStarted(), { file: fault });
      await settle(10, async () => bulk.operations.size > 1);
      for (const b of await sync.db.prisma.backfill.findMany())
        expect(b).toMatchObject({ status: "running", queued: 0, error: expect.stringContaining(words) });
      expect(await sync.db.prisma.job.count({ where: { kind: { in: ["order", "shipment"] } } })).toBe(0);
      await bulk.finish(latestOperation());
      await settle();
      await expectEveryConnectedOrderImportedOnce();
    });
  }

  it("a file cut short at a line boundary is caught by Shopify's object count", async () => {
    standIn();
    await launch();
    const operationId = await untilOperationStarted();
    await bulk.finish(operationId);
    bulk.operations.get(operationId)!.objectCount += 1; // Shopify counted one more object than the file holds
    await settle(10, async () => bulk.operations.size > 1);
    expect((await sync.db.prisma.backfill.findFirstOrThrow()).error).toContain("ended early");
    expect(await sync.db.prisma.job.count({ where: { kind: "order" } })).toBe(0);
  });

  it("the result URL expired before it was read: runs again", async () => {
    standIn({ urlTtlMs: 1 });
    await launch();
    await bulk.finish(await untilOperationStarted());
    sync.clock.advance(10);
    await settle(10, async () => bulk.operations.size > 1);
    expect((await sync.db.prisma.backfill.findFirstOrThrow()).error).toContain("had expired before it was read");
    (bulk as unknown as { options: BulkOptions }).options.urlTtlMs = 7 * 86_400_000;
    await bulk.finish(latestOperation());
    await settle();
    await expectEveryConnectedOrderImportedOnce();
  });

  for (const busyCode of ["LIMIT_REACHED", "OPERATION_IN_PROGRESS"] as const) {
    it(`the shop runs five bulk queries already (${busyCode}): the backfill waits its turn`, async () => {
      standIn({ busyCode });
      const others = [];
      for (let i = 0; i < 5; i++) {
        const answer = await sync.adminGraphql(
          SHOP,
          "mutation SyncBulkOrders($query: String!) { bulkOperationRunQuery(query: $query, groupObjects: false) { bulkOperation { id } userErrors { code } } }",
          {
            query: bulkOrdersQuery(new Date(0)),
          },
        );
        others.push(
          (answer as { data: { bulkOperationRunQuery: { bulkOperation: { id: string } } } }).data.bulkOperationRunQuery
            .bulkOperation.id,
        );
      }
      await launch();
      await settle(3);
      const run = await sync.db.prisma.bulkRun.findFirstOrThrow();
      expect(run).toMatchObject({ operationId: null, error: expect.stringContaining("most bulk operations") });
      expect(bulk.operations.size).toBe(5);
      await bulk.finish(others[0]); // a slot frees up
      const operationId = await untilOperationStarted();
      await bulk.finish(operationId);
      await settle();
      await expectEveryConnectedOrderImportedOnce();
    });
  }

  it("a restart while the file is read: resumes past what it queued, nothing imported twice", async () => {
    standIn();
    await launch();
    await bulk.finish(await untilOperationStarted());
    // The second download (the pass that queues) breaks after its first chunk, as a killed process would.
    let downloads = 0;
    sync.deps.fetch = async (url, init) => {
      const response = await fetch(url, init);
      if (++downloads !== 2) return response;
      const reader = response.body!.getReader();
      const first = await reader.read();
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(first.value);
          },
          pull(controller) {
            controller.error(new TypeError("terminated"));
          },
        }),
      );
    };
    await settle();
    await expectEveryConnectedOrderImportedOnce();
    expect(downloads).toBeGreaterThan(2);
    for (const b of await sync.db.prisma.backfill.findMany()) expect(b).toMatchObject({ status: "done", queued: 4 });
  });

  it("a restart while the operation runs: the new worker polls the same operation", async () => {
    standIn();
    await launch();
    const operationId = await untilOperationStarted();
    // The worker that started it is gone; its job is leased by nobody now (handed back at stop), due at the poll.
    await bulk.finish(operationId);
    sync.clock.advance(BULK_POLL_MS);
    await settle();
    expect(bulk.operations.size).toBe(1);
    await expectEveryConnectedOrderImportedOnce();
  });

  it("a customer who disconnects while their orders stream gets nothing more queued", async () => {
    standIn();
    await launch();
    await bulk.finish(await untilOperationStarted());
    let downloads = 0;
    sync.deps.fetch = async (url, init) => {
      if (++downloads === 2)
        await sync.db.prisma.customerGrant.deleteMany({ where: { shop: SHOP, customerId: CONNECTED[1] } });
      return fetch(url, init);
    };
    await settle();
    expect(await sync.db.prisma.job.count({ where: { kind: "order" } })).toBe(8);
    expect(await sync.db.prisma.syncRecord.count({ where: { customerId: CONNECTED[1] } })).toBe(0);
    expect(await sync.db.prisma.backfill.findFirstOrThrow({ where: { customerId: CONNECTED[1] } })).toMatchObject({
      status: "failed",
      error: expect.stringContaining("disconnected"),
    });
  });
});

describe("the stand-in's validation of bulk queries", () => {
  it("refuses more than five connections and nesting over two levels; takes the app's query", () => {
    expect(bulkQueryProblems(bulkOrdersQuery(new Date()))).toBeNull();
    const six = `{ orders { edges { node { id ${[1, 2, 3, 4, 5].map((i) => `c${i}: lineItems { edges { node { id } } }`).join(" ")} } } } }`;
    expect(bulkQueryProblems(six)).toMatch(/more than 5 connections/);
    const deep =
      "{ customers { edges { node { id orders { edges { node { id lineItems { edges { node { id } } } } } } } } } }";
    expect(bulkQueryProblems(deep)).toMatch(/2 levels/);
    expect(bulkQueryProblems("{ shop { id } }")).toMatch(/at least one connection/);
  });
});
