// The intake's group commit as production runs it (the driver, docs/decisions/0004): a delivery that arrives when nothing is
// being written goes at once, deliveries that arrive while a batch is written go together as the next one, and
// small batches run as prepared statements (one per size), which must store exactly what the unprepared form did,
// however often a size comes back and whatever its rows hold.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { driverOf, type Db } from "~/db/sql.server";
import { createIntakeBatcher } from "~/sync/intake-batcher.server";
import { PREPARED_BATCH_SIZES, type Delivery } from "~/sync/intake-write.server";
import { clearSyncTables } from "./support";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";

const backends = usingPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const shop = "prepared-shop.myshopify.com";

const order = (id: number, extra: Record<string, unknown> = {}): Delivery => ({
  shop,
  topic: "orders/create",
  eventId: `evt-o-${id}`,
  webhookId: `wh-o-${id}`,
  payload: { id, name: `#${id}`, customer: { id: 7 }, line_items: [], ...extra },
});
// Fulfillments carry no order name (the subscription does not ask for it): the record takes its order's.
const shipment = (id: number, orderId: number): Delivery => ({
  shop,
  topic: "fulfillments/create",
  eventId: `evt-f-${id}`,
  webhookId: `wh-f-${id}`,
  payload: { id, order_id: orderId, line_items: [] },
});

/** The client's driver, counting the rows of each intake statement (14 parameters a row), held after `hold()`. */
function watched(db: Db) {
  const state = { rows: [] as number[], release: () => {}, held: false };
  let gate = Promise.resolve();
  const driver = driverOf(db)!;
  const query = driver.query.bind(driver);
  vi.spyOn(driver, "query").mockImplementation(async <T>(text: string, params: unknown[], name?: string) => {
    if (text.includes('INSERT INTO "WebhookDelivery"')) state.rows.push(params.length / 14);
    await gate;
    return query<T>(text, params, name);
  });
  const hold = () => {
    gate = new Promise<void>((resolve) => (state.release = resolve));
  };
  return { state, hold };
}

describe.each(backends)("intake batches through the driver on %s", (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(() => clearSyncTables(db.prisma));
  afterEach(() => vi.restoreAllMocks());

  it("writes a delivery that arrives when nothing is being written at once, without waiting for the window", async () => {
    const batcher = createIntakeBatcher(db.prisma, { windowMs: 20_000 });
    const started = performance.now();
    const result = await batcher.submit(order(1));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ duplicate: false, jobId: expect.any(String) });
  });

  it("gathers the deliveries that arrive while a batch is written into the next statement", async () => {
    const { state, hold } = watched(db.prisma);
    const batcher = createIntakeBatcher(db.prisma, { windowMs: 5, maxInFlight: 1 });
    hold();
    const first = batcher.submit(order(10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = [11, 12, 13, 14].map((id) => batcher.submit(order(id)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.rows).toEqual([1]); // the first went alone and is still held; the others wait for it
    state.release();
    const results = await Promise.all([first, ...later]);
    expect(state.rows).toEqual([1, 4]);
    expect(results.every((r) => !r.duplicate && r.jobId)).toBe(true);
    expect(await db.prisma.job.count()).toBe(5);
  });

  it("stores the same rows through a size's prepared statement every time it comes back, and through larger unprepared ones", async () => {
    const batcher = createIntakeBatcher(db.prisma, { windowMs: 5 });
    const sizes = [1, 3, PREPARED_BATCH_SIZES, PREPARED_BATCH_SIZES + 1];
    let next = 1000;
    const placed = await batcher.submit(order(999));
    const expectedJobs: string[] = [placed.jobId!];
    for (let round = 0; round < 6; round++) {
      for (const size of sizes) {
        // Rows that differ in what is null: an order without a name, a shipment (its order's name comes from the
        // order's record), a topic that imports nothing.
        const batch = Array.from({ length: size }, (_, i): Delivery => {
          const id = (next += 1);
          switch ((i + round) % 4) {
            case 0:
              return order(id);
            case 1:
              return order(id, { name: undefined });
            case 2:
              return shipment(id, 999);
            default:
              return { ...order(id), topic: "orders/paid" };
          }
        });
        const results = await Promise.all(batch.map((d) => batcher.submit(d)));
        batch.forEach((d, i) => {
          expect(results[i].duplicate).toBe(false);
          if (d.topic === "orders/paid") expect(results[i].jobId).toBeUndefined();
          else expectedJobs.push(results[i].jobId!);
        });
        // The same batch again: every delivery a redelivery, nothing written twice.
        const again = await Promise.all(batch.map((d) => batcher.submit(d)));
        expect(again.map((r) => [r.duplicate, r.deliveryId])).toEqual(results.map((r) => [true, r.deliveryId]));
      }
    }
    const jobs = await db.prisma.job.findMany({ orderBy: { seq: "asc" }, select: { id: true } });
    expect(jobs.map((j) => j.id)).toEqual(expectedJobs);
    const total = 6 * sizes.reduce((a, b) => a + b, 0);
    expect(await db.prisma.webhookDelivery.count()).toBe(total + 1);
    const records = await db.prisma.syncRecord.findMany({ select: { kind: true, orderName: true } });
    const names = (kind: string) => new Set(records.filter((r) => r.kind === kind).map((r) => r.orderName === null));
    expect(names("order")).toEqual(new Set([true, false])); // with and without a name, as sent
    expect(records.filter((r) => r.kind === "shipment").every((r) => r.orderName === "#999")).toBe(true);
    expect(records.filter((r) => r.kind === "shipment").length).toBeGreaterThan(20);
  });
});
