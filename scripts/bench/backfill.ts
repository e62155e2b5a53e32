// Backfill against the cost-checking Admin API stand-in (dev/admin-api: Shopify's query cost rules, a standard
// plan's bucket of 1,000 points restoring 100 a second, THROTTLED when short), in real time: a customer's past
// orders fetched page by page and queued, as the worker runs a backfill. Rows: orders fetched and queued a second,
// and the share of the bucket's restored points the backfill used (the rest is waiting it did not need). A THROTTLED
// answer must never reach the Backfill row the merchant sees.
import { setupServer } from "msw/node";
import { openDatabase } from "../../app/db/connect.server";
import { AdminCostBudget } from "../../app/shopify/admin-cost-budget.server";
import { runBackfillJob, startBackfill } from "../../app/sync/backfill.server";
import { QueryCostLimiter } from "../../dev/admin-api/cost";
import { orderHandlers } from "../../dev/admin-api/orders";
import { DEMO_PRODUCTS, type PastOrder } from "../../dev/demo-store";
import { adminGraphqlOverFetch, ratioRow, throwawayDatabase, type Bench, type Row } from "./common";

const SHOP = "backfill-bench.myshopify.com";
const CUSTOMER = "7000000001";
const ORDERS = Number(process.env.BENCH_BACKFILL_ORDERS ?? 120);
const LINES = 5;

function history(now: number): PastOrder[] {
  return Array.from({ length: ORDERS }, (_, i) => ({
    id: String(5_800_000_000 + i),
    name: `#${5000 + i}`,
    customerId: CUSTOMER,
    createdAt: new Date(now - (50 - (i * 40) / ORDERS) * 86_400_000).toISOString(),
    lines: Array.from({ length: LINES }, (_, j) => ({
      id: String(9_500_000_000 + i * 100 + j),
      product: DEMO_PRODUCTS[j % DEMO_PRODUCTS.length],
      quantity: 1,
    })),
    fulfillment: {
      id: String(6_800_000_000 + i),
      createdAt: new Date(now - 5 * 86_400_000).toISOString(),
      company: "DHL",
      number: `JD${i}`,
    },
  }));
}

export const backfillBench: Bench = {
  name: "backfill",
  async run({ adminUrl, log }) {
    const limiter = new QueryCostLimiter();
    const orders = history(Date.now());
    const server = setupServer(...orderHandlers({ orders: () => orders, limiter }));
    server.listen({ onUnhandledRequest: "bypass" });
    const db = await throwawayDatabase(adminUrl, "backfill");
    const app = openDatabase({ url: db.url, poolSize: 4 });
    try {
      await app.ready;
      const prisma = app.prisma;
      const adminGraphql = adminGraphqlOverFetch;
      const deps = { adminGraphql, now: () => new Date(), budget: new AdminCostBudget() };
      log(`backfill: ${ORDERS} orders of ${LINES} lines, one fulfillment each, bucket 1000 points at 100/s`);
      const started = Date.now();
      const backfillId = await startBackfill(prisma, { shop: SHOP, customerId: CUSTOMER });
      for (;;) {
        const job = await prisma.job.findFirst({
          where: { kind: "backfill", status: "queued" },
          orderBy: { seq: "asc" },
        });
        if (!job) break;
        const leased = await prisma.job.update({
          where: { id: job.id },
          data: { status: "running", attempts: 1, leasedBy: "bench" },
        });
        await runBackfillJob(prisma, leased, deps);
        await prisma.job.update({ where: { id: job.id }, data: { status: "done" } });
      }
      const seconds = (Date.now() - started) / 1000;
      const row = await prisma.backfill.findUniqueOrThrow({ where: { id: backfillId } });
      const queued = await prisma.job.count({ where: { kind: "order" } });
      // Points restored while it ran that it spent (the bucket started full: what it drew of that is not counted).
      const drawnFromStart = limiter.maximumAvailable - limiter.status(SHOP).currentlyAvailable;
      const share = (limiter.spent - drawnFromStart) / (limiter.restoreRate * seconds);
      const pointsPerOrder = limiter.spent / ORDERS;
      const clean = row.status === "done" && row.error === null && queued === ORDERS;
      const rows: Row[] = [
        ratioRow({
          figure: "backfill orders/s (cost-checked Admin API)",
          value: queued / seconds,
          unit: "orders/s",
          baselineLabel: "bucket's 100 points/s / points per order",
          baseline: limiter.restoreRate / pointsPerOrder,
          target: "all queued, no THROTTLED on the row",
          met: clean,
          note: `${queued}/${ORDERS} orders in ${seconds.toFixed(1)} s, ${pointsPerOrder.toFixed(1)} points an order, ${limiter.throttled} THROTTLED answers (waited out), ${limiter.maxCostExceeded} over the limit; backfill ${row.status}${row.error ? `: ${row.error}` : ""}`,
        }),
        ratioRow({
          figure: "backfill share of the 100 points/s bucket",
          value: share * 100,
          unit: "%",
          baselineLabel: "target",
          baseline: 80,
          target: ">= 80 %",
          met: share >= 0.8 && clean,
        }),
      ];
      return rows;
    } finally {
      server.close();
      await app.close();
      await db.drop();
    }
  },
};
