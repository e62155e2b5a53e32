// Retention with a clock moved forward past the period: old payloads and attempt logs go, every record keeps its
// state, records that never reached the service say why their data is gone, and nothing newer is touched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import type { GrantStore } from "~/service/client.server";
import { recordDataRequest, markDataRequestHandled } from "~/privacy/export.server";
import { runHousekeeping } from "~/privacy/housekeeping.server";
import { DEFAULT_RETENTION_DAYS, pruneExpired, RETENTION_NOTICE, saveRetentionDays } from "~/privacy/retention.server";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { drainJobs, type SyncDeps } from "~/sync/job-runner.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { Clock, connectCustomer, SHOP, shopifyOrder, syncDeps } from "../sync/support";
import { startTestEmulator } from "../helpers/emulator";

const LONG_SHOP = "keeps-a-year.myshopify.com";
const DAY = 86_400_000;
let db: TestDatabase;
let emulator: RunningEmulator;
let stores: Map<string, GrantStore>;
let clock: Clock;
let deps: SyncDeps;

beforeAll(async () => {
  [db, emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
  stores = new Map();
  clock = new Clock();
  deps = syncDeps(db.prisma, emulator, stores, clock);
  await connectCustomer(db.prisma, emulator, stores, "7000000001");
  await connectCustomer(db.prisma, emulator, stores, "7000000002", "ws-acme", "needs_reconnect");
}, 60_000);
afterAll(async () => {
  await emulator?.close();
  await db?.close();
});

let event = 0;
async function deliver(order: ReturnType<typeof shopifyOrder>, shop = SHOP) {
  await recordSyncDelivery(db.prisma, { shop, topic: "ORDERS_CREATE", eventId: `evt-${++event}`, payload: order });
  return order;
}
const recordOf = (order: { id: number }) =>
  db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(order.id) } });
const jobsOf = async (order: { id: number }) =>
  db.prisma.job.findMany({ where: { recordId: (await recordOf(order)).id }, orderBy: { seq: "asc" } });
async function deliveryOf(order: { id: number }) {
  const [job] = await jobsOf(order);
  return db.prisma.webhookDelivery.findUnique({ where: { id: job.deliveryId! } });
}

describe("retention", () => {
  it("prunes payloads, attempt logs and finished jobs past the period, keeping states and everything newer", async () => {
    expect(await saveRetentionDays(db.prisma, LONG_SHOP, "365")).toMatchObject({ ok: true, days: 365 });
    expect(await saveRetentionDays(db.prisma, SHOP, "3")).toMatchObject({ ok: false });
    // Day 0: an imported order, one that failed, one waiting for its customer, one skipped, and another shop's.
    const imported = await deliver(shopifyOrder({ customer: { id: 7000000001 } }));
    const failed = await deliver(shopifyOrder({ customer: { id: 7000000001 }, created_at: null }));
    const waiting = await deliver(shopifyOrder({ customer: { id: 7000000002 } }));
    const skipped = await deliver(shopifyOrder({ customer: null }));
    const otherShop = await deliver(shopifyOrder({ customer: null }), LONG_SHOP);
    await drainJobs(deps);
    const states = async () =>
      Promise.all([imported, failed, waiting, skipped, otherShop].map(async (o) => (await recordOf(o)).state));
    expect(await states()).toEqual(["imported", "failed", "waiting", "skipped", "skipped"]);
    const handled = await recordDataRequest(db.prisma, {
      shop: SHOP,
      customerId: "7000000001",
      requestId: "dr-old",
      ordersRequested: [],
    });
    await markDataRequestHandled(db.prisma, SHOP, handled.id, clock.now());
    const open = await recordDataRequest(db.prisma, {
      shop: SHOP,
      customerId: "7000000001",
      requestId: "dr-open",
      ordersRequested: [],
    });
    const failedReason = (await recordOf(failed)).reason;

    // The clock moves past the default period; a new order arrives and is imported then.
    clock.advance((DEFAULT_RETENTION_DAYS + 1) * DAY);
    const fresh = await deliver(shopifyOrder({ customer: { id: 7000000001 } }));
    await db.prisma.webhookDelivery.updateMany({
      where: { id: (await deliveryOf(fresh))!.id },
      data: { receivedAt: clock.now() },
    });
    await db.prisma.job.updateMany({
      where: { recordId: (await recordOf(fresh)).id },
      data: { createdAt: clock.now() },
    });
    await drainJobs(deps);
    const attemptsOf = async (order: { id: number }) =>
      db.prisma.syncAttempt.findMany({ where: { recordId: (await recordOf(order)).id } });
    expect(await attemptsOf(imported)).toHaveLength(1);
    const freshBefore = {
      record: await recordOf(fresh),
      jobs: await jobsOf(fresh),
      delivery: await deliveryOf(fresh),
      attempts: await attemptsOf(fresh),
    };
    expect(freshBefore.attempts).toHaveLength(1);
    expect(freshBefore.record.state).toBe("imported");

    // Small batches: one round of one row per kind touches one record only.
    const first = await pruneExpired(db.prisma, { now: clock.now(), batch: 1, rounds: 1 });
    expect(first).toMatchObject({ payloadsCleared: 1, jobsDeleted: 1, dataRequestsDeleted: 1, attemptsDeleted: 1 });
    expect(await pruneExpired(db.prisma, { now: clock.now() })).toMatchObject({
      payloadsCleared: 2,
      dataRequestsDeleted: 0,
    });

    // States kept, every one.
    expect(await states()).toEqual(["imported", "failed", "waiting", "skipped", "skipped"]);
    // Imported: its attempt log and payload are gone; the record (ids, state, times) stays.
    expect(await jobsOf(imported)).toEqual([]);
    expect((await recordOf(imported)).importedAt).not.toBeNull();
    expect(await db.prisma.webhookDelivery.count({ where: { payload: { path: ["id"], equals: imported.id } } })).toBe(
      0,
    );
    // Not at the service: payload gone, latest job kept for the record, the merchant told why.
    for (const order of [failed, waiting, skipped]) {
      const [job] = await jobsOf(order);
      expect(job.payload).toEqual({});
      expect((await deliveryOf(order))!.payload).toEqual({});
      expect((await recordOf(order)).reason).toContain(RETENTION_NOTICE);
    }
    expect((await recordOf(failed)).reason).toBe(`${failedReason} ${RETENTION_NOTICE}`);
    expect((await jobsOf(waiting))[0]).toMatchObject({ status: "cancelled", lastError: RETENTION_NOTICE });
    // The other shop keeps a year: untouched.
    expect((await deliveryOf(otherShop))!.payload).toMatchObject({ id: otherShop.id });
    expect((await recordOf(otherShop)).reason).not.toContain(RETENTION_NOTICE);
    // Newer than the period: untouched.
    expect({
      record: await recordOf(fresh),
      jobs: await jobsOf(fresh),
      delivery: await deliveryOf(fresh),
      attempts: await attemptsOf(fresh),
    }).toEqual(freshBefore);
    // The log of sends to the service goes with the period too.
    expect(await attemptsOf(imported)).toEqual([]);
    expect(await db.prisma.dataRequest.findMany({ select: { id: true } })).toEqual([{ id: open.id }]);

    // Again: nothing more to do, and the notice is not repeated.
    expect(await pruneExpired(db.prisma, { now: clock.now() })).toEqual({
      payloadsCleared: 0,
      jobsDeleted: 0,
      deliveriesDeleted: 0,
      dataRequestsDeleted: 0,
      handoffsDeleted: 0,
      attemptsDeleted: 0,
      receiptsDeleted: 0,
    });
    expect((await recordOf(failed)).reason).toBe(`${failedReason} ${RETENTION_NOTICE}`);
    // The waiting order's customer reconnects: there is nothing left to send, so nothing is sent.
    await db.prisma.customerGrant.updateMany({ where: { customerId: "7000000002" }, data: { status: "active" } });
    clock.advance(7 * 3600_000);
    expect(await drainJobs(deps)).toBe(0);
  });
});

describe("housekeeping", () => {
  it("deletes connection states a day past their expiry, whether or not anyone starts a connection", async () => {
    const now = clock.now();
    const state = (name: string, expiresAt: Date) =>
      db.prisma.oAuthState.create({
        data: {
          state: name,
          shop: SHOP,
          customerId: "7000000009",
          codeVerifierEnc: "enc:v1:unused",
          redirectUri: "https://app.test/connect/callback",
          expiresAt,
        },
      });
    await state("long-expired", new Date(now.getTime() - 2 * DAY));
    await state("just-expired", new Date(now.getTime() - 3600_000));
    await state("running", new Date(now.getTime() + 600_000));
    const report = await runHousekeeping(db.prisma, { now });
    expect(report).toMatchObject({ statesDeleted: 1, errors: [] });
    expect(
      (await db.prisma.oAuthState.findMany({ select: { state: true }, orderBy: { state: "asc" } })).map((s) => s.state),
    ).toEqual(["just-expired", "running"]);
  });
});
