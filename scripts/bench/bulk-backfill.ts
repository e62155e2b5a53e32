// A launch against the Admin API stand-in (dev/admin-api: Shopify's cost rules and its bulk operations): 1,000
// connected customers with 50 orders of 50 lines each start their backfills in one shop. The bulk path (one
// shop-wide bulk operation, its JSONL read in two streaming passes and routed to each customer's backfill) is
// timed to the last order queued; the paged path is measured on a sample of the same orders (one customer's,
// in real time against the cost bucket, which starts full, so the sample is if anything fast) and extrapolated:
// paged backfills of one shop share its one bucket, so their rate does not grow with the customers. Rows: orders
// queued a second (bulk vs paged), the process's RSS growth while the file is read, and the share of the shop's
// restored Admin API points the bulk backfill used while it ran.
import { setupServer } from "msw/node";
import { openDatabase } from "../../app/db/connect.server";
import { AdminCostBudget } from "../../app/sync/admin-budget.server";
import { runBackfillJob, startBackfill } from "../../app/sync/backfill.server";
import { BULK_JOB_KIND, runBulkBackfillJob } from "../../app/sync/bulk-backfill.server";
import { BulkOperations } from "../../dev/admin-api/bulk";
import { QueryCostLimiter } from "../../dev/admin-api/cost";
import { orderHandlers } from "../../dev/admin-api/orders";
import { DEMO_PRODUCTS, type PastOrder } from "../../dev/demo-store";
import { ratioRow, throwawayDatabase, type Bench, type Row } from "./common";

const SHOP = "bulk-bench.myshopify.com";
const CUSTOMERS = Number(process.env.BENCH_BULK_CUSTOMERS ?? 1000);
const ORDERS = Number(process.env.BENCH_BULK_ORDERS ?? 50);
const LINES = Number(process.env.BENCH_BULK_LINES ?? 50);
const SAMPLE = Number(process.env.BENCH_BULK_PAGED_SAMPLE ?? 20);
const customerId = (c: number) => String(7_600_000_000 + c);

/** The launch's orders, generated as they are read (never all in memory). */
function* launchOrders(now: number, customers = CUSTOMERS, orders = ORDERS): Generator<PastOrder> {
  for (let c = 0; c < customers; c++)
    for (let i = 0; i < orders; i++) {
      const n = c * orders + i;
      yield {
        id: String(5_900_000_000 + n),
        name: `#${100000 + n}`,
        customerId: customerId(c),
        createdAt: new Date(now - (50 - (i * 40) / orders) * 86_400_000).toISOString(),
        lines: Array.from({ length: LINES }, (_, j) => ({
          id: String(95_000_000_000 + n * 100 + j),
          product: DEMO_PRODUCTS[j % DEMO_PRODUCTS.length],
          quantity: 1 + (j % 3),
        })),
        fulfillment: null,
      };
    }
}

export const bulkBackfillBench: Bench = {
  name: "bulk-backfill",
  async run({ adminUrl, log }) {
    const now = Date.now();
    const limiter = new QueryCostLimiter();
    const bulk = new BulkOperations({ orders: () => launchOrders(now), limiter, webhook: null, shuffleWindow: 64 });
    const pagedLimiter = new QueryCostLimiter();
    const sample = [...launchOrders(now, 1, SAMPLE)].map((o) => ({ ...o, customerId: "7699999999" }));
    const server = setupServer(...bulk.handlers(), ...orderHandlers({ orders: () => sample, limiter: pagedLimiter }));
    server.listen({ onUnhandledRequest: "bypass" });
    const db = await throwawayDatabase(adminUrl, "bulk_backfill");
    const app = openDatabase({ url: db.url, poolSize: 4 });
    try {
      await app.ready;
      const prisma = app.prisma;
      const adminGraphql = async (shop: string, query: string, variables: Record<string, unknown>) =>
        (
          await fetch(`https://${shop}/admin/api/2026-10/graphql.json`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ query, variables }),
          })
        ).json();
      const lease = async (kind: string) => {
        const job = await prisma.job.findFirst({ where: { kind, status: "queued" }, orderBy: { seq: "asc" } });
        return job
          ? prisma.job.update({ where: { id: job.id }, data: { status: "running", attempts: 1, leasedBy: "bench" } })
          : null;
      };

      // The paged path on a sample: one customer's orders of the same size, page by page against the bucket.
      log(`bulk-backfill: paged sample, ${SAMPLE} orders of ${LINES} lines, bucket 1000 points at 100/s`);
      const pagedDeps = { adminGraphql, now: () => new Date(), budget: new AdminCostBudget() };
      const pagedStart = Date.now();
      await startBackfill(prisma, { shop: "paged-sample.myshopify.com", customerId: "7699999999", bulkFrom: 1e9 });
      for (let job = await lease("backfill"); job; job = await lease("backfill")) {
        await runBackfillJob(prisma, job, pagedDeps);
        await prisma.job.update({ where: { id: job.id }, data: { status: "done" } });
      }
      const pagedSeconds = (Date.now() - pagedStart) / 1000;
      const pagedQueued = await prisma.job.count({ where: { kind: "order", shop: "paged-sample.myshopify.com" } });
      const pagedRate = pagedQueued / pagedSeconds;

      // The launch: every customer connected (grant rows), then their backfills start.
      const total = CUSTOMERS * ORDERS;
      log(`bulk-backfill: launch, ${CUSTOMERS} customers x ${ORDERS} orders of ${LINES} lines (${total} orders)`);
      for (let c = 0; c < CUSTOMERS; c += 500)
        await prisma.customerGrant.createMany({
          data: Array.from({ length: Math.min(500, CUSTOMERS - c) }, (_, k) => ({
            shop: SHOP,
            customerId: customerId(c + k),
            workspaceId: "ws-bench",
            scopes: "orders:write",
            accessTokenEnc: "unused-in-bench",
          })),
        });
      const started = Date.now();
      for (let c = 0; c < CUSTOMERS; c++) await startBackfill(prisma, { shop: SHOP, customerId: customerId(c) });
      const bulkDeps = { adminGraphql, now: () => new Date(), budget: new AdminCostBudget() };
      let rssBefore = 0;
      let rssPeak = 0;
      let sampler: ReturnType<typeof setInterval> | undefined;
      for (let job = await lease(BULK_JOB_KIND); job; job = await lease(BULK_JOB_KIND)) {
        const run = await prisma.bulkRun.findUniqueOrThrow({ where: { id: (job.payload as { runId: string }).runId } });
        if (run.operationId && bulk.operations.get(run.operationId)?.status !== "COMPLETED") {
          // Shopify builds the file (the stand-in at once); its finish webhook wakes the job.
          await bulk.finish(run.operationId);
          rssBefore = process.memoryUsage().rss;
          rssPeak = rssBefore;
          sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
        }
        const step = await runBulkBackfillJob(prisma, job, bulkDeps);
        await prisma.job.update({
          where: { id: job.id },
          data: step ? { status: "queued", runAt: new Date(), leasedBy: null } : { status: "done" },
        });
      }
      if (sampler) clearInterval(sampler);
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      const seconds = (Date.now() - started) / 1000;
      const queued = await prisma.job.count({ where: { kind: "order", shop: SHOP } });
      const done = await prisma.backfill.count({ where: { shop: SHOP, status: "done", path: "bulk" } });
      const op = [...bulk.operations.values()].at(-1);
      const lines = op?.objectCount ?? 0;
      const bulkRate = queued / seconds;
      const growthMiB = (rssPeak - rssBefore) / 2 ** 20;
      // Points restored while it ran that it spent (the bucket started full).
      const share = limiter.spent / (limiter.restoreRate * seconds);
      const clean = queued === total && done === CUSTOMERS;
      const rows: Row[] = [
        ratioRow({
          figure: "launch backfill orders/s, bulk vs paged",
          value: bulkRate,
          unit: "orders/s",
          baselineLabel: "paged (sample, extrapolated)",
          baseline: pagedRate,
          target: ">= 20x",
          met: clean && bulkRate >= 20 * pagedRate,
          note: `bulk: ${queued}/${total} orders queued in ${seconds.toFixed(1)} s (${CUSTOMERS} backfills, ${done} done, ${lines} JSONL lines); paged: ${pagedQueued} orders in ${pagedSeconds.toFixed(1)} s on one customer's sample, ${(total / pagedRate / 3600).toFixed(1)} h for the launch`,
        }),
        ratioRow({
          figure: "RSS growth reading the launch's JSONL",
          value: growthMiB,
          unit: "MiB",
          baselineLabel: "target",
          baseline: 100,
          target: "< 100 MiB",
          met: growthMiB < 100 && lines >= 1_000_000,
          note: `${lines} lines read twice (check, then join) and routed; RSS ${(rssBefore / 2 ** 20).toFixed(0)} -> peak ${(rssPeak / 2 ** 20).toFixed(0)} MiB (the stand-in writes the file in the same process)`,
        }),
        ratioRow({
          figure: "bulk backfill share of the shop's restored points",
          value: share * 100,
          unit: "%",
          baselineLabel: "target",
          baseline: 5,
          target: "< 5 %",
          met: share < 0.05 && clean,
          note: `${limiter.spent} points spent in ${seconds.toFixed(1)} s (bulkOperationRunQuery and polls of bulkOperation(id)); restored meanwhile ${(limiter.restoreRate * seconds).toFixed(0)}`,
        }),
      ];
      return rows;
    } finally {
      bulk.close();
      server.close();
      await app.close();
      await db.drop();
    }
  },
};
