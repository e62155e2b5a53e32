import { describe, expect, it } from "vitest";
import { withSyncDatabase } from "./support";
import { backoffMs } from "~/lib/backoff";
import { completeJob, enqueueJob, failJob, leaseJobs, rescheduleJob, retryRecordJob } from "~/sync/queue.server";
import { orderKeyOf } from "~/sync/mapping.server";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";

const db = withSyncDatabase();
const shop = "queue-shop.myshopify.com";

describe("job queue", () => {
  it("leases a due job once, with attempts counted, and completes it", async () => {
    const id = await enqueueJob(db.prisma, { shop, kind: "order", orderKey: orderKeyOf("1") });
    const [job] = await leaseJobs(db.prisma, { workerId: "w1" });
    expect(job.id).toBe(id);
    expect(job).toMatchObject({ status: "running", attempts: 1, leasedBy: "w1" });
    expect(await leaseJobs(db.prisma, { workerId: "w2" })).toHaveLength(0);
    expect(await completeJob(db.prisma, job)).toBe(true);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id } })).status).toBe("done");
  });

  it("a leased job carries the delivery it imports (read in the lease's statement), and says when that delivery is gone", async () => {
    const order = {
      id: 7_700_000_000_001,
      name: "#7001",
      line_items: [{ id: 9_900_000_000_001, title: "Mug", quantity: 1 }],
    };
    const { jobId, deliveryId } = await recordSyncDelivery(db.prisma, {
      shop,
      topic: "ORDERS_CREATE",
      eventId: "evt-lease-1",
      payload: order,
    });
    const [job] = await leaseJobs(db.prisma, { workerId: "w1" });
    expect(job).toMatchObject({
      id: jobId,
      deliveryId,
      deliveryFound: true,
      deliveryPayload: { id: order.id, name: "#7001" },
    });
    expect(await failJob(db.prisma, job, "test")).toBe(true);

    // The delivery redacted while its job waits: the lease says so (the import then falls back to the job's own payload).
    await db.prisma.job.update({ where: { id: job.id }, data: { status: "queued", runAt: new Date(0) } });
    await db.prisma.webhookDelivery.delete({ where: { id: deliveryId } });
    const [again] = await leaseJobs(db.prisma, { workerId: "w1" });
    expect(again).toMatchObject({ id: jobId, deliveryFound: false, deliveryPayload: null });
  });

  it("does not lease jobs before their run time", async () => {
    await enqueueJob(db.prisma, { shop, kind: "order", runAt: new Date(Date.now() + 60_000) });
    expect(await leaseJobs(db.prisma, { workerId: "w1" })).toHaveLength(0);
    expect(await leaseJobs(db.prisma, { workerId: "w1", now: new Date(Date.now() + 61_000) })).toHaveLength(1);
  });

  it("takes over a job whose lease expired (its worker died), and fences the old worker out", async () => {
    await enqueueJob(db.prisma, { shop, kind: "order", orderKey: orderKeyOf("2") });
    const t = Date.now();
    const [abandoned] = await leaseJobs(db.prisma, { workerId: "dead", leaseMs: 1_000, now: new Date(t) });
    expect(await leaseJobs(db.prisma, { workerId: "w2", now: new Date(t + 999) })).toHaveLength(0);
    const [taken] = await leaseJobs(db.prisma, { workerId: "w2", now: new Date(t + 1_001) });
    expect(taken).toMatchObject({ id: abandoned.id, leasedBy: "w2", attempts: 2 });
    expect(await completeJob(db.prisma, abandoned)).toBe(false);
    expect(await completeJob(db.prisma, taken)).toBe(true);
  });

  it("fails a job that keeps killing its workers once its attempts are used up", async () => {
    const record = await db.prisma.syncRecord.create({
      data: { shop, kind: "order", externalId: "poison", orderId: "poison" },
    });
    await enqueueJob(db.prisma, {
      shop,
      kind: "order",
      orderKey: orderKeyOf("poison"),
      recordId: record.id,
      maxAttempts: 2,
    });
    const t = Date.now();
    await leaseJobs(db.prisma, { workerId: "dies-1", leaseMs: 1_000, now: new Date(t) });
    const [second] = await leaseJobs(db.prisma, { workerId: "dies-2", leaseMs: 1_000, now: new Date(t + 2_000) });
    expect(second.attempts).toBe(2);
    expect(await leaseJobs(db.prisma, { workerId: "w", now: new Date(t + 4_000) })).toHaveLength(0);
    expect(await db.prisma.job.findUniqueOrThrow({ where: { id: second.id } })).toMatchObject({ status: "failed" });
    expect(await db.prisma.syncRecord.findUniqueOrThrow({ where: { id: record.id } })).toMatchObject({
      state: "failed",
      reason: "Gave up after 2 attempts: the worker stopped while processing it each time.",
    });
  });

  it("runs jobs of one order one at a time and in order; an order does not wait behind its shipment", async () => {
    const key = orderKeyOf("3");
    const shipment = await enqueueJob(db.prisma, { shop, kind: "shipment", orderKey: key });
    const order = await enqueueJob(db.prisma, { shop, kind: "order", orderKey: key });
    const update = await enqueueJob(db.prisma, { shop, kind: "order", orderKey: key });
    const other = await enqueueJob(db.prisma, { shop, kind: "order", orderKey: orderKeyOf("4") });
    const first = await leaseJobs(db.prisma, { workerId: "w", limit: 10 });
    expect(first.map((j) => j.id)).toEqual([shipment, other]);
    await rescheduleJob(db.prisma, first[0], {
      runAt: new Date(Date.now() + 60_000),
      error: "waiting for its order",
      countAttempt: false,
    });
    const second = await leaseJobs(db.prisma, { workerId: "w", limit: 10 });
    expect(second.map((j) => j.id)).toEqual([order]);
    expect(await leaseJobs(db.prisma, { workerId: "w", limit: 10 })).toHaveLength(0);
    await completeJob(db.prisma, second[0]);
    const third = await leaseJobs(db.prisma, { workerId: "w", limit: 10 });
    expect(third.map((j) => j.id)).toEqual([update]);
    const waiting = await db.prisma.job.findUniqueOrThrow({ where: { id: shipment } });
    expect(waiting.attempts).toBe(0);
  });

  it("leaves jobs of a paused shop queued until it resumes", async () => {
    await db.prisma.shopSettings.create({ data: { shop, syncPaused: true } });
    await enqueueJob(db.prisma, { shop, kind: "order" });
    expect(await leaseJobs(db.prisma, { workerId: "w" })).toHaveLength(0);
    await db.prisma.shopSettings.update({ where: { shop }, data: { syncPaused: false } });
    expect(await leaseJobs(db.prisma, { workerId: "w" })).toHaveLength(1);
  });

  it("fails a job finally, and a manual retry queues it again with a fresh budget", async () => {
    await enqueueJob(db.prisma, { shop, kind: "order", recordId: "rec-1", maxAttempts: 1 });
    const [job] = await leaseJobs(db.prisma, { workerId: "w" });
    await failJob(db.prisma, job, "gave up");
    expect(await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({
      status: "failed",
      lastError: "gave up",
    });
    expect(await retryRecordJob(db.prisma, shop, "rec-1")).toBe(true);
    expect(await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({
      status: "queued",
      attempts: 0,
    });
  });

  it("backs off exponentially and honours Retry-After", () => {
    const mid = () => 0.5;
    expect(backoffMs(1, undefined, mid)).toBe(1500);
    expect(backoffMs(3, undefined, mid)).toBe(6000);
    expect(backoffMs(30, undefined, () => 1)).toBe(15 * 60_000);
    expect(backoffMs(1, 20_000, mid)).toBe(20_000);
  });
});
