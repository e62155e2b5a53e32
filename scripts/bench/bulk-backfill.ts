// A launch against the Admin API stand-in (dev/admin-api: Shopify's cost rules and its bulk operations): 1,000
// connected customers with 50 orders of 50 lines each start their backfills in one shop. The bulk path (one
// shop-wide bulk operation, its JSONL read in two streaming passes and routed to each customer's backfill) is
// timed to the last order queued; the paged path is measured on a sample of the same orders (one customer's,
// in real time against the cost bucket, which starts full, so the sample is if anything fast) and extrapolated:
// paged backfills of one shop share its one bucket, so their rate does not grow with the customers. Rows: orders
// queued a second (bulk vs paged), the process's RSS growth while the file is read, and the share of the shop's
// restored Admin API points the bulk backfill used while it ran.
import { readFileSync, writeFileSync } from "node:fs";
import { setupServer } from "msw/node";
import { openDatabase } from "../../app/db/connect.server";
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from "../../app/runtime/heap.server";
import { AdminCostBudget } from "../../app/shopify/admin-cost-budget.server";
import { runBackfillJob, startBackfill } from "../../app/sync/backfill.server";
import { BULK_JOB_KIND, runBulkBackfillJob } from "../../app/sync/bulk-backfill.server";
import { bulkOrdersQuery } from "../../app/sync/bulk-queries.server";
import { BULK_FILE_ORIGIN, BulkOperations } from "../../dev/admin-api/bulk";
import { QueryCostLimiter } from "../../dev/admin-api/cost";
import { orderHandlers } from "../../dev/admin-api/orders";
import { spawn } from "node:child_process";
import { CUSTOMERS, customerId, launchOrders, LINES, ORDERS } from "./bulk-orders";
import { adminGraphqlOverFetch, ratioRow, throwawayDatabase, type Bench, type Row } from "./common";

const SHOP = "bulk-bench.myshopify.com";
const SAMPLE = Number(process.env.BENCH_BULK_PAGED_SAMPLE ?? 20);

/** Peak RSS since the last reset (VmHWM), and its reset (Linux: clear_refs 5), so a phase's peak can be read. */
const peakRss = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;
const resetPeakRss = () => writeFileSync("/proc/self/clear_refs", "5");

export const bulkBackfillBench: Bench = {
  name: "bulk-backfill",
  async run({ adminUrl, log }) {
    boundHeapGrowth(); // as every process that runs the sync worker does (startSyncWorker)
    const now = Date.now();
    const limiter = new QueryCostLimiter();
    const bulk = new BulkOperations({ orders: () => launchOrders(now), limiter, webhook: null, shuffleWindow: 64 });
    const pagedLimiter = new QueryCostLimiter();
    const sample = [...launchOrders(now, 1, SAMPLE)].map((o) => ({ ...o, customerId: "7699999999" }));
    const server = setupServer(...bulk.handlers(), ...orderHandlers({ orders: () => sample, limiter: pagedLimiter }));
    server.listen({ onUnhandledRequest: "bypass" });
    // The result file over a real socket from its own process, as Shopify's storage serves it: the RSS measured is
    // the app's alone (and MSW would keep a copy of a whole body it answers).
    const files = spawn("node_modules/.bin/tsx", ["scripts/bench/bulk-files.ts"], {
      env: { ...process.env, BULK_QUERY: bulkOrdersQuery(new Date(now - 60 * 86_400_000)), BULK_NOW: String(now) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const port = await new Promise<string>((resolve) => files.stdout!.once("data", (d) => resolve(String(d).trim())));
    const fileOrigin = `http://127.0.0.1:${port}`;
    const fetchFile: typeof fetch = (url, init) => fetch(String(url).replace(BULK_FILE_ORIGIN, fileOrigin), init);
    const db = await throwawayDatabase(adminUrl, "bulk_backfill");
    const app = openDatabase({ url: db.url, poolSize: 4 });
    try {
      await app.ready;
      const prisma = app.prisma;
      const adminGraphql = adminGraphqlOverFetch;
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
      // Over 50,000 orders the bucket's first 1,000 points are nothing: the paged path runs at the restore rate over
      // what an order costs (measured on the sample), never faster than the sample itself ran.
      const pointsPerOrder = pagedLimiter.spent / Math.max(1, pagedQueued);
      const pagedRate = Math.min(pagedQueued / pagedSeconds, pagedLimiter.restoreRate / pointsPerOrder);

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
      const bulkDeps = { adminGraphql, now: () => new Date(), budget: new AdminCostBudget(), fetch: fetchFile };
      let rssBefore = 0;
      let rssPeak = 0;
      for (let job = await lease(BULK_JOB_KIND); job; job = await lease(BULK_JOB_KIND)) {
        const run = await prisma.bulkRun.findUniqueOrThrow({ where: { id: (job.payload as { runId: string }).runId } });
        const reading = !!run.operationId;
        if (run.operationId && bulk.operations.get(run.operationId)?.status !== "COMPLETED") {
          // Shopify builds the file (the stand-in at once); its finish webhook wakes the job.
          await bulk.finish(run.operationId);
        }
        if (reading) {
          resetPeakRss();
          rssBefore = process.memoryUsage().rss;
        }
        const step = await runBulkBackfillJob(prisma, job, bulkDeps);
        if (reading) rssPeak = Math.max(rssPeak, peakRss());
        await prisma.job.update({
          where: { id: job.id },
          data: step ? { status: "queued", runAt: new Date(), leasedBy: null } : { status: "done" },
        });
      }
      const seconds = (Date.now() - started) / 1000;
      const queued = await prisma.job.count({ where: { kind: "order", shop: SHOP } });
      const done = await prisma.backfill.count({ where: { shop: SHOP, status: "done", path: "bulk" } });
      const op = [...bulk.operations.values()].at(-1);
      const lines = op?.objectCount ?? 0;
      const growthMiB = (rssPeak - rssBefore) / 2 ** 20;
      const bulkRate = queued / seconds;
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
          note: `bulk: ${queued}/${total} orders queued in ${seconds.toFixed(1)} s (${CUSTOMERS} backfills, ${done} done, ${lines} JSONL lines); paged: ${pagedQueued} orders in ${pagedSeconds.toFixed(1)} s on one customer's sample (${(pagedQueued / pagedSeconds).toFixed(2)} orders/s with the bucket starting full), ${pointsPerOrder.toFixed(0)} points an order, so ${pagedRate.toFixed(2)} orders/s at 100 points/s: ${(total / pagedRate / 3600).toFixed(1)} h for the launch`,
        }),
        ratioRow({
          figure: "RSS growth reading the launch's JSONL",
          value: growthMiB,
          unit: "MiB",
          baselineLabel: "target",
          baseline: 100,
          target: "< 100 MiB",
          met: growthMiB < 100 && lines >= 1_000_000,
          note: `${lines} lines read twice (check, then join) and routed; RSS ${(rssBefore / 2 ** 20).toFixed(0)} -> peak ${(rssPeak / 2 ** 20).toFixed(0)} MiB (peak while the file is read and its orders queued, VmHWM; the file served from its own process; heap growth bounded at ${HEAP_GROWING_PERCENT} % as the app's processes run)`,
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
      files.kill();
      await app.close();
      await db.drop();
    }
  },
};
