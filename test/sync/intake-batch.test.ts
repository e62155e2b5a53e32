// Group commit at intake: many deliveries, one statement; an answer only after the commit; all-or-nothing batches.
import type { PrismaClient } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { withSyncDatabase } from "./support";
import { createIntakeBatcher } from "~/sync/intake-batcher.server";
import type { Delivery } from "~/sync/intake-write.server";

const db = withSyncDatabase();
const shop = "batch-shop.myshopify.com";

const order = (id: number, eventId = `evt-${id}`): Delivery => ({
  shop,
  topic: "orders/create",
  eventId,
  webhookId: `wh-${eventId}`,
  payload: { id, customer: { id: 7 }, line_items: [] },
});

/** The real client, with its raw statements held until `open()` or failing while `failing` is set. */
function gated(prisma: PrismaClient) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const state = { failing: false, statements: 0 };
  const client = new Proxy(prisma, {
    get(target, property) {
      if (property === "$queryRaw") {
        return async (...args: Parameters<PrismaClient["$queryRaw"]>) => {
          state.statements += 1;
          await gate;
          if (state.failing) throw new Error("connection lost");
          return target.$queryRaw(...args);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { client, open, state };
}

describe("intake group commit", () => {
  it("stores a delivery with a NUL or a lone surrogate in a kept string, with the deliveries batched beside it", async () => {
    const batcher = createIntakeBatcher(db.prisma, { windowMs: 20 });
    const poison = {
      ...order(61),
      payload: {
        id: 61,
        name: "#10\u000061",
        customer: { id: 7 },
        line_items: [{ id: 1, title: "Mug\u0000 blue", sku: "A\uD800", quantity: 1 }],
      },
    };
    const other = { ...order(62), shop: "other-batch-shop.myshopify.com" };
    const results = await Promise.allSettled([
      batcher.submit(order(60)),
      batcher.submit(poison),
      batcher.submit(other),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    const stored = await db.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: "evt-61" } });
    expect(stored.payload).toMatchObject({ name: "#1061", line_items: [{ title: "Mug blue", sku: "A\uFFFD" }] });
    expect(await db.prisma.job.count()).toBe(3);
  });

  it("writes a refused delivery's batch again in halves, so only that delivery fails", async () => {
    // A row the database refuses for a reason the minimiser does not know yet: its statements fail.
    const client = new Proxy(db.prisma, {
      get(target, property) {
        if (property === "$queryRaw") {
          return async (...args: Parameters<PrismaClient["$queryRaw"]>) => {
            const values = args.map((a) => (a as { values?: unknown[] } | null)?.values ?? a);
            if (JSON.stringify(values).includes("evt-poison")) throw new Error("invalid input");
            return target.$queryRaw(...args);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const batcher = createIntakeBatcher(client, { windowMs: 20 });
    const results = await Promise.allSettled([
      batcher.submit(order(70)),
      batcher.submit(order(71)),
      batcher.submit(order(72, "evt-poison")),
      batcher.submit(order(73)),
      batcher.submit(order(73)), // a copy in the same batch: answered as a redelivery
      batcher.submit({ ...order(74), shop: "other-batch-shop.myshopify.com" }),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value.duplicate : null))).toEqual([
      false,
      false,
      null,
      false,
      true,
      false,
    ]);
    expect(
      (await db.prisma.webhookDelivery.findMany({ select: { eventId: true } })).map((d) => d.eventId).sort(),
    ).toEqual(["evt-70", "evt-71", "evt-73", "evt-74"]);
    expect(await db.prisma.job.count()).toBe(4);
  });

  it("writes concurrent deliveries in one statement and answers each only once its rows are committed", async () => {
    const { client, open, state } = gated(db.prisma);
    const batcher = createIntakeBatcher(client, { windowMs: 5 });
    const settled: string[] = [];
    const answers = Array.from({ length: 20 }, (_, i) =>
      batcher.submit(order(1000 + i)).then(async (result) => {
        // At the moment of the answer, the delivery and its job are visible to any other connection.
        const stored = await db.prisma.job.findFirst({ where: { deliveryId: result.deliveryId } });
        settled.push(stored ? "stored" : "missing");
        return result;
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toEqual([]); // the statement is held: nobody was answered
    expect(state.statements).toBe(1);
    open();
    const results = await Promise.all(answers);
    expect(settled).toEqual(Array(20).fill("stored"));
    expect(results.every((r) => !r.duplicate && r.jobId)).toBe(true);
    expect(await db.prisma.webhookDelivery.count()).toBe(20);
    expect(await db.prisma.syncRecord.count()).toBe(20);
    // Jobs keep arrival order, so one order's jobs run in the order they came.
    const jobs = await db.prisma.job.findMany({ orderBy: { seq: "asc" }, select: { id: true } });
    expect(jobs.map((j) => j.id)).toEqual(results.map((r) => r.jobId));
  });

  it("fails every delivery of a batch when the database fails, and keeps what was acknowledged before", async () => {
    const { client, open, state } = gated(db.prisma);
    open();
    const batcher = createIntakeBatcher(client, { windowMs: 5 });
    const first = await Promise.all([batcher.submit(order(1)), batcher.submit(order(2))]);
    state.failing = true;
    const failed = await Promise.allSettled([
      batcher.submit(order(3)),
      batcher.submit(order(4)),
      batcher.submit(order(5)),
    ]);
    expect(failed.map((f) => f.status)).toEqual(["rejected", "rejected", "rejected"]);
    state.failing = false;
    const stored = await db.prisma.webhookDelivery.findMany({ select: { id: true, eventId: true } });
    expect(stored.map((s) => s.eventId).sort()).toEqual(["evt-1", "evt-2"]);
    expect(stored.map((s) => s.id).sort()).toEqual(first.map((f) => f.deliveryId).sort());
    // Shopify retries the failed ones: now they are stored, once.
    await Promise.all([batcher.submit(order(3)), batcher.submit(order(4)), batcher.submit(order(5))]);
    expect(await db.prisma.webhookDelivery.count()).toBe(5);
    expect(await db.prisma.job.count()).toBe(5);
  });

  it("records a redelivery once, inside one batch and across batches", async () => {
    const batcher = createIntakeBatcher(db.prisma, { windowMs: 5 });
    const earlier = await batcher.submit(order(42, "evt-a"));
    const results = await Promise.all([
      batcher.submit(order(7, "evt-b")),
      batcher.submit(order(7, "evt-b")),
      batcher.submit(order(42, "evt-a")),
      batcher.submit(order(7, "evt-b")),
      // Another event of an order in the same batch: its own delivery and job, the same record.
      batcher.submit({ ...order(7, "evt-c"), topic: "orders/updated" }),
    ]);
    expect(results.map((r) => r.duplicate)).toEqual([false, true, true, true, false]);
    expect(results[1].deliveryId).toBe(results[0].deliveryId);
    expect(results[2].deliveryId).toBe(earlier.deliveryId);
    expect(results[1].jobId).toBeUndefined();
    expect(await db.prisma.webhookDelivery.count()).toBe(3);
    expect(await db.prisma.job.count()).toBe(3);
    const records = await db.prisma.syncRecord.findMany({ orderBy: { externalId: "asc" } });
    expect(records.map((r) => r.externalId)).toEqual(["42", "7"]);
    const jobs = await db.prisma.job.findMany({ where: { recordId: records[1].id } });
    expect(jobs).toHaveLength(2);
  });
});

describe("intake group commit through the database driver (production's path, no Prisma)", () => {
  it("stores batches of any size, exact 64-bit ids, redeliveries once", async () => {
    const batcher = createIntakeBatcher(db.prisma, { windowMs: 5 });
    const big = "820982911946154508"; // above 2^53: kept exact as the parser hands it over (a string)
    const first = await batcher.submit({
      ...order(1, "evt-big"),
      payload: { id: big, customer: { id: big }, line_items: [] },
    });
    // Batches of other sizes: a statement of 14 parameters a row, each size its own text.
    const sizes = [1, 5, 17];
    for (const [n, size] of sizes.entries()) {
      const results = await Promise.all(
        Array.from({ length: size }, (_, i) => batcher.submit(order(100 * (n + 1) + i))),
      );
      expect(results.every((r) => !r.duplicate && r.jobId)).toBe(true);
    }
    const again = await Promise.all([
      batcher.submit(order(1, "evt-big")),
      batcher.submit(order(2, "evt-two")),
      batcher.submit(order(2, "evt-two")),
    ]);
    expect(again.map((r) => r.duplicate)).toEqual([true, false, true]);
    expect(again[0].deliveryId).toBe(first.deliveryId);
    expect(again[2].deliveryId).toBe(again[1].deliveryId);
    const stored = await db.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: "evt-big" } });
    expect(stored.payload).toMatchObject({ id: big });
    const record = await db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: big } });
    expect(record).toMatchObject({ shop, kind: "order", orderId: big, state: "pending" });
    expect(await db.prisma.webhookDelivery.count()).toBe(1 + 1 + 5 + 17 + 1);
    expect(await db.prisma.job.count()).toBe(1 + 1 + 5 + 17 + 1);
  });

  it("answers only after the commit: the delivery and its job are visible to another connection at the answer", async () => {
    const batcher = createIntakeBatcher(db.prisma, { windowMs: 5 });
    const seen = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        batcher
          .submit(order(5000 + i))
          .then(async (result) => Boolean(await db.prisma.job.findFirst({ where: { deliveryId: result.deliveryId } }))),
      ),
    );
    expect(seen).toEqual(Array(12).fill(true));
    const jobs = await db.prisma.job.findMany({ orderBy: { seq: "asc" }, select: { recordId: true } });
    const records = new Map((await db.prisma.syncRecord.findMany()).map((r) => [r.id, r.externalId]));
    expect(jobs.map((j) => records.get(j.recordId!))).toEqual(Array.from({ length: 12 }, (_, i) => String(5000 + i)));
  });
});
