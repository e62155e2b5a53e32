// Leasing from 100,000 queued jobs: each lease reads a few dozen rows, not the queue; shops take turns; jobs of
// one order still run one at a time and in order. Runs on PostgreSQL when TEST_DATABASE_URL is set, PGlite otherwise.
import { describe, expect, it } from "vitest";
import { withSyncDatabase } from "./support";
import { backlogShop, explainLease, fillQueue } from "../../scripts/bench/backlog";
import { enqueueJob, leaseJobs } from "~/sync/queue.server";
import { orderKeyOf } from "~/sync/mapping.server";
import type { PrismaClient, Job } from "@prisma/client";

const db = withSyncDatabase();
const LIMIT = 8;
// What one lease may read of "Job" whatever the backlog: candidates (2 × limit per shop looked at, a few skipped
// behind their order) and one index probe each for the per-order check. The statement this replaced read every
// queued job (100,000 here).
const ROWS_PER_LEASE = 60 * LIMIT;

async function complete(prisma: PrismaClient, jobs: Job[]) {
  if (jobs.length)
    await prisma.$executeRawUnsafe(
      `UPDATE "Job" SET status = 'done' WHERE id = ANY($1::text[])`,
      jobs.map((j) => j.id),
    );
}

/** Per order: no other job of it is running, and every earlier one (but a shipment before its order) is done. */
async function expectOrderRespected(prisma: PrismaClient, leased: Job[]) {
  const keys = leased.filter((j) => j.orderKey).map((j) => j.orderKey);
  expect(new Set(keys).size).toBe(keys.length);
  for (const job of leased.filter((j) => j.orderKey)) {
    const blocking = await prisma.job.count({
      where: {
        shop: job.shop,
        orderKey: job.orderKey,
        id: { not: job.id },
        OR: [
          { status: "running", leasedBy: { not: job.leasedBy } },
          { status: "queued", seq: { lt: job.seq }, ...(job.kind === "order" ? { kind: { not: "shipment" } } : {}) },
        ],
      },
    });
    expect(blocking, `${job.orderKey} leased out of order`).toBe(0);
  }
}

describe("leasing from a queue of 100,000 jobs", () => {
  it(
    "reads O(limit) rows per lease, serves the shops in turn, lets a new shop in within one turn, keeps each order's order",
    { timeout: 300_000 },
    async () => {
      // One shop's backfill of 60,000 jobs (orders of two jobs each: the order, then a shipment), queued first, and
      // 1,000 other shops with 40 each.
      await fillQueue(db.prisma, { count: 60_000, shops: 1, prefix: "big", jobsPerOrder: 2 });
      await fillQueue(db.prisma, { count: 40_000, shops: 1_000, prefix: "shop" });
      expect(await db.prisma.job.count({ where: { status: "queued" } })).toBe(100_000);

      const first = await explainLease(db.prisma, { workerId: "w0", limit: LIMIT });
      expect(first.leased).toBe(LIMIT);
      expect(first.jobRows).toBeLessThan(ROWS_PER_LEASE);

      // 41 leases of 8, each completed before the next: 328 jobs from 328 different shops (the big shop once),
      // since a served shop goes to the back of the turn order.
      const w0 = await db.prisma.job.findMany({ where: { leasedBy: "w0" } });
      await complete(db.prisma, w0);
      const served: string[] = w0.map((j) => j.shop);
      for (let i = 0; i < 40; i++) {
        const leased = await leaseJobs(db.prisma, { workerId: `w${i}`, limit: LIMIT });
        expect(leased).toHaveLength(LIMIT);
        expect(new Set(leased.map((j) => j.shop)).size).toBe(LIMIT);
        await expectOrderRespected(db.prisma, leased);
        served.push(...leased.map((j) => j.shop));
        await complete(db.prisma, leased);
      }
      expect(new Set(served).size).toBe(served.length);
      expect(served.filter((s) => s === backlogShop("big", 0)).length).toBeLessThanOrEqual(1);

      // A shop's new order is leased within one turn of the shops: before any shop (the big one included) is served
      // a second time, although 100,000 jobs were queued before it.
      const fresh = await enqueueJob(db.prisma, {
        shop: "new-shop.myshopify.com",
        kind: "order",
        orderKey: orderKeyOf("new-1"),
      });
      let leases = 0;
      for (;;) {
        const next = await leaseJobs(db.prisma, { workerId: `w-next-${leases}`, limit: LIMIT });
        leases += 1;
        await complete(db.prisma, next);
        if (next.some((j) => j.id === fresh)) break;
        served.push(...next.map((j) => j.shop));
        expect(new Set(served).size, "a shop served twice before the new shop's order").toBe(served.length);
      }
      expect(leases).toBeLessThanOrEqual(Math.ceil(1_002 / LIMIT));

      // Only the big shop left (the others' jobs cancelled: their JobShop rows become stale and are cleared by the
      // lease): each lease takes 16 of its orders, never an order's shipment while the order runs or waits.
      await db.prisma
        .$executeRaw`UPDATE "Job" SET status = 'cancelled' WHERE shop <> ${backlogShop("big", 0)} AND status = 'queued'`;
      // The 1,000 stale shops are removed as leases come across them (24 a lease), then the big shop is served.
      const running: Job[] = [];
      for (let tries = 1; running.length === 0; tries++) {
        running.push(...(await leaseJobs(db.prisma, { workerId: `clear-${tries}`, limit: 16 })));
        expect(tries).toBeLessThan(60);
      }
      for (let i = 0; i < 5; i++) {
        const plan = await explainLease(db.prisma, { workerId: `big-${i}`, limit: 16 });
        expect(plan.jobRows).toBeLessThan(60 * 16);
        const leased = await db.prisma.job.findMany({ where: { leasedBy: `big-${i}` }, orderBy: { seq: "asc" } });
        expect(leased.length).toBe(16);
        expect(leased.every((j) => j.kind === "order")).toBe(true); // each order's shipment waits while it runs
        await expectOrderRespected(db.prisma, leased);
        running.push(...leased);
      }
      // Once the orders are done, their shipments come in seq order, each after its order.
      await complete(db.prisma, running);
      const shipments = await leaseJobs(db.prisma, { workerId: "big-after", limit: 16 });
      expect(shipments.every((j) => j.kind === "shipment")).toBe(true);
      expect(shipments.map((j) => j.orderKey)).toEqual(running.slice(0, 16).map((j) => j.orderKey));
      await expectOrderRespected(db.prisma, shipments);
      expect(await db.prisma.jobShop.count()).toBe(1);
    },
  );
});
