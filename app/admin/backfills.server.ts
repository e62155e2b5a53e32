// Backfill progress (past orders fetched when a customer connects), for the home page and the sync log: each
// backfill's path (paged, or a share of a shop-wide bulk operation), its orders found, queued and imported, and the
// state of the bulk operation it waits on.
import type { PrismaClient } from "@prisma/client";
import { customerLabel, customerNames } from "./log.server";

export interface BackfillView {
  id: string;
  /** The customer's name or email when their grant carries one. */
  customer: string;
  days: number;
  status: string;
  total: number;
  queued: number;
  /** 0 to 100. */
  percent: number;
  error: string | null;
  /** Why it waits or failed, as data (app/admin/backfill-words.ts words it). */
  errorDetails: unknown;
  createdAt: string;
  path: "paged" | "bulk";
  /** The customer's orders the service has imported (imported or updated records). */
  imported: number;
  /** The shop-wide bulk operation this backfill reads, while it runs (null otherwise). */
  bulk: BulkView | null;
}

export interface BulkView {
  /** waiting (for a slot or for the launch to gather), running (Shopify builds the file), reading (the app queues). */
  stage: "waiting" | "running" | "reading";
  /** Shopify's BulkOperationStatus as last seen (CREATED, RUNNING, COMPLETED), when an operation was started. */
  shopifyStatus: string | null;
  /** Objects Shopify has written so far. */
  objects: number;
}

/** The shop's latest backfills with their progress. */
export async function loadBackfills(prisma: PrismaClient, shop: string, take = 5): Promise<BackfillView[]> {
  const backfills = await prisma.backfill.findMany({ where: { shop }, orderBy: { createdAt: "desc" }, take });
  const names = await customerNames(
    prisma,
    shop,
    backfills.map((b) => b.customerId),
  );
  const customers = [...new Set(backfills.map((b) => b.customerId))];
  const [imported, runs] = await Promise.all([
    prisma.syncRecord.groupBy({
      by: ["customerId"],
      where: { shop, kind: "order", customerId: { in: customers }, state: { in: ["imported", "updated"] } },
      _count: { _all: true },
    }),
    prisma.bulkRun.findMany({
      where: { id: { in: backfills.flatMap((b) => (b.bulkRunId ? [b.bulkRunId] : [])) } },
      select: { id: true, status: true, shopifyStatus: true, objectCount: true },
    }),
  ]);
  const importedBy = new Map(imported.map((r) => [r.customerId, r._count._all]));
  const runBy = new Map(runs.map((r) => [r.id, r]));
  const bulkOf = (b: (typeof backfills)[number]): BulkView | null => {
    if (b.path !== "bulk" || b.status !== "running") return null;
    const run = b.bulkRunId ? runBy.get(b.bulkRunId) : undefined;
    const stage = run?.status === "running" || run?.status === "reading" ? run.status : "waiting";
    return { stage, shopifyStatus: run?.shopifyStatus ?? null, objects: run?.objectCount ?? 0 };
  };
  return backfills.map((b) => ({
    id: b.id,
    customer: customerLabel(b.customerId, names),
    days: b.days,
    status: b.status,
    total: b.total,
    queued: b.queued,
    percent: b.status === "done" ? 100 : b.total > 0 ? Math.min(100, Math.round((100 * b.queued) / b.total)) : 0,
    error: b.error,
    errorDetails: b.errorDetails,
    createdAt: b.createdAt.toISOString(),
    path: b.path === "bulk" ? "bulk" : "paged",
    imported: importedBy.get(b.customerId) ?? 0,
    bulk: bulkOf(b),
  }));
}
