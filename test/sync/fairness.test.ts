// Fair leasing between shops: one shop's backlog does not hold back another shop's new order.
import { describe, expect, it } from "vitest";
import { withSyncDatabase } from "./support";
import { orderKeyOf } from "~/sync/mapping.server";
import { enqueueJob, leaseJobs } from "~/sync/queue.server";

const db = withSyncDatabase();
const busy = "busy-shop.myshopify.com";
const quiet = "quiet-shop.myshopify.com";

async function backlog(shop: string, count: number, from = 0) {
  for (let i = 0; i < count; i++)
    await enqueueJob(db.prisma, { shop, kind: "order", orderKey: orderKeyOf(`${shop}-${from + i}`) });
}

describe("fair leasing", () => {
  it("gives a shop's new order a place in the next lease, however long another shop's backlog", async () => {
    await backlog(busy, 40);
    const fresh = await enqueueJob(db.prisma, { shop: quiet, kind: "order", orderKey: orderKeyOf("q-1") });
    const leased = await leaseJobs(db.prisma, { workerId: "w1", limit: 4 });
    expect(leased.map((j) => j.id)).toContain(fresh);
    expect(leased.filter((j) => j.shop === busy)).toHaveLength(3);
  });

  it("leasing one job at a time alternates between shops (the shop with less running goes first)", async () => {
    await backlog(busy, 10);
    await backlog(quiet, 3);
    const shops: string[] = [];
    for (let i = 0; i < 6; i++) {
      const [job] = await leaseJobs(db.prisma, { workerId: `w${i}`, limit: 1 });
      shops.push(job.shop);
    }
    expect(shops).toEqual([busy, quiet, busy, quiet, busy, quiet]);
  });

  it("skips a paused shop without letting it take another shop's turn", async () => {
    await db.prisma.shopSettings.create({ data: { shop: busy, syncPaused: true } });
    await backlog(busy, 20);
    await backlog(quiet, 1);
    const [job] = await leaseJobs(db.prisma, { workerId: "w1", limit: 1 });
    expect(job?.shop).toBe(quiet);
  });
});
