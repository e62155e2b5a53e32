// The Backfills card's data: each customer's backfill with its path, orders found, queued and imported, and the
// state of the bulk operation a bulk backfill waits on.
import { describe, expect, it } from "vitest";
import { loadBackfills } from "~/admin/backfills.server";
import { SHOP, withSyncDatabase } from "../sync/support";

const db = withSyncDatabase();

describe("the Backfills card", () => {
  it("shows the path, found, queued and imported, and a running bulk operation's state", async () => {
    const run = await db.prisma.bulkRun.create({
      data: {
        shop: SHOP,
        status: "running",
        operationId: "gid://shopify/BulkOperation/9",
        shopifyStatus: "RUNNING",
        objectCount: 1200,
      },
    });
    await db.prisma.backfill.create({
      data: { shop: SHOP, customerId: "7500000001", days: 60, path: "bulk", bulkRunId: run.id },
    });
    await db.prisma.backfill.create({
      data: { shop: SHOP, customerId: "7500000002", days: 60, path: "bulk" }, // waits for the next run
    });
    await db.prisma.backfill.create({
      data: { shop: SHOP, customerId: "7500000003", days: 30, total: 5, queued: 5, status: "done" },
    });
    for (const [i, state] of (["imported", "updated", "failed"] as const).entries())
      await db.prisma.syncRecord.create({
        data: { shop: SHOP, kind: "order", externalId: `90${i}`, orderId: `90${i}`, customerId: "7500000003", state },
      });
    const views = await loadBackfills(db.prisma, SHOP);
    const by = new Map(views.map((v) => [v.customer.replace(/\D/g, ""), v]));
    expect(by.get("7500000001")).toMatchObject({
      path: "bulk",
      bulk: { stage: "running", shopifyStatus: "RUNNING", objects: 1200 },
    });
    expect(by.get("7500000002")).toMatchObject({ path: "bulk", bulk: { stage: "waiting" } });
    expect(by.get("7500000003")).toMatchObject({ path: "paged", bulk: null, total: 5, queued: 5, imported: 2 });
  });
});
