// Sync log bench (part of `npm run bench`): the log page's loader with 100,000 records on PostgreSQL, first page and
// a deep cursor page, filtered and unfiltered, against a baseline (the bare keyset query, same client, same run),
// and the CSV export of 100,000 rows with the heap growth it caused (bounded memory = far below the CSV's size).
// Target: loader p95 under 300 ms.
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import type { PrismaClient } from "@prisma/client";
import { openDatabase } from "../../app/db/connect.server";
import { throwawayDatabase, type Bench, type Row } from "./common";
import { percentile, timeSamples } from "./load";

const SHOP = "bench-log.myshopify.com";
const RECORDS = Number(process.env.BENCH_LOG_RECORDS ?? 100_000);
const HANDOFFS = Math.round(RECORDS / 50);
const SAMPLES = Number(process.env.BENCH_LOG_N ?? 200);

const pct = percentile;
const sample = (run: () => Promise<unknown>) => timeSamples(run, SAMPLES);

async function seed(prisma: PrismaClient) {
  // One statement each: states spread like a real shop (mostly imported, some failed), 500 customers, one a second.
  await prisma.$executeRawUnsafe(`
    INSERT INTO "SyncRecord" (id, shop, kind, "externalId", "orderId", "orderName", "customerId", state, reason, attempts, "createdAt", "updatedAt")
    SELECT gen_random_uuid()::text, '${SHOP}', CASE WHEN i % 3 = 0 THEN 'shipment' ELSE 'order' END, 'x' || i, (1000000 + i / 3)::text,
      '#' || (1000 + i / 3), (7000000000 + i % 500)::text,
      (ARRAY['imported','imported','imported','imported','updated','skipped','failed','waiting','imported','pending'])[1 + i % 10],
      CASE WHEN i % 10 = 6 THEN 'Gave up after 12 attempts. The service had an internal problem (HTTP 500).' END, 1 + i % 3,
      (now() AT TIME ZONE 'UTC') - (i || ' seconds')::interval, now() AT TIME ZONE 'UTC'
    FROM generate_series(1, ${RECORDS}) AS i`);
  await prisma.$executeRawUnsafe(`
    INSERT INTO "CartHandoff" (id, shop, "customerId", "cartTokenHash", "contentHash", "externalCartId", "idempotencyKey", "lineCount", lines, state, "createdAt", "updatedAt")
    SELECT gen_random_uuid()::text, '${SHOP}', (7000000000 + i % 500)::text, md5(i::text), md5(i::text), 'cart-' || i, 'k' || i, 2, '[]'::jsonb,
      CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'created' END, (now() AT TIME ZONE 'UTC') - (i * 50 || ' seconds')::interval, now() AT TIME ZONE 'UTC'
    FROM generate_series(1, ${HANDOFFS}) AS i`);
  await prisma.$executeRawUnsafe(`ANALYZE "SyncRecord"; `);
  await prisma.$executeRawUnsafe(`ANALYZE "CartHandoff"`);
}

export interface BenchLine {
  name: string;
  p50: number;
  p95: number;
  p99: number;
}

export interface ExportFigures {
  rows: number;
  seconds: number;
  earlyMb: number;
  growthMb: number;
  bounded: boolean;
}

export async function benchSyncLog(
  prisma: PrismaClient,
): Promise<{ lines: BenchLine[]; report: string[]; exported: ExportFigures }> {
  const { loadLogView } = await import("../../app/admin/log.server");
  const { encodeCursor } = await import("../../app/admin/log-query.server");
  const { exportLogCsv } = await import("../../app/admin/log-export.server");
  process.stderr.write(`  sync log: seeding ${RECORDS} records and ${HANDOFFS} handoffs\n`);
  await seed(prisma);
  const deepRow = await prisma.syncRecord.findFirstOrThrow({
    where: { shop: SHOP },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: Math.floor(RECORDS * 0.9),
    select: { createdAt: true, id: true },
  });
  const deep = encodeCursor({ at: deepRow.createdAt, id: deepRow.id });
  const deepFailed = await prisma.syncRecord.findFirstOrThrow({
    where: { shop: SHOP, state: "failed" },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: Math.floor((RECORDS / 10) * 0.9),
    select: { createdAt: true, id: true },
  });
  const deepF = encodeCursor({ at: deepFailed.createdAt, id: deepFailed.id });
  const view = (query: string) => () => loadLogView(prisma, SHOP, new URLSearchParams(query));

  const cases: [string, () => Promise<unknown>][] = [
    [
      "baseline: bare keyset query (51 rows)",
      () =>
        prisma.$queryRaw`SELECT * FROM "SyncRecord" WHERE shop = ${SHOP} ORDER BY "createdAt" DESC, id DESC LIMIT 51`,
    ],
    ["log loader: first page, unfiltered", view("")],
    ["log loader: deep cursor page (90%), unfiltered", view(`after=${deep}`)],
    ["log loader: first page, failed + customer", view("state=failed&customer=7000000006")],
    ["log loader: deep cursor page, failed", view(`state=failed&after=${deepF}`)],
    ["log loader: orders, date range, oldest first", view("kind=order&from=2000-01-01&to=2100-01-01&sort=asc")],
    ["log loader: search #1234", view("q=%231234")],
  ];
  const lines: BenchLine[] = [];
  for (const [name, run] of cases) {
    const s = await sample(run);
    lines.push({ name, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99) });
    process.stderr.write(`  measured ${name}\n`);
  }

  // Export: 100,000+ rows through the stream. Live heap (after a full GC, every 10 chunks) is what "bounded" means:
  // garbage waiting for collection is not memory the export holds.
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = heapBefore;
  let earlyPeak = heapBefore; // over the first 10% of the rows
  let bytes = 0;
  let rows = 0;
  let chunks = 0;
  const t = performance.now();
  const reader = exportLogCsv(prisma, SHOP, { sort: "desc" }).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    for (const b of value) if (b === 10) rows += 1;
    if (++chunks % 10 === 0) {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      if (rows <= (RECORDS + HANDOFFS) / 10) earlyPeak = peak;
    }
  }
  const exportMs = performance.now() - t;
  const growth = peak - heapBefore;
  const early = earlyPeak - heapBefore;
  // Bounded: what the export holds does not grow with the rows exported (the whole run needs no more than its first 10%).
  const bounded = growth <= early + 2e6;
  const report = [
    `CSV export: ${rows - 1} rows, ${(bytes / 1e6).toFixed(1)} MB in ${(exportMs / 1000).toFixed(1)} s; live heap growth ${(early / 1e6).toFixed(1)} MB` +
      ` after 10% of the rows, ${(growth / 1e6).toFixed(1)} MB at most over all of them: ${bounded ? "bounded" : "NOT bounded"}`,
  ];
  const worst = Math.max(...lines.filter((l) => l.name.startsWith("log loader")).map((l) => l.p95));
  report.push(
    `Target: sync log loader p95 < 300 ms → worst ${worst.toFixed(1)} ms: ${worst < 300 ? "met" : "NOT met"}`,
  );
  return {
    lines,
    report,
    exported: { rows: rows - 1, seconds: exportMs / 1000, earlyMb: early / 1e6, growthMb: growth / 1e6, bounded },
  };
}

/** The bench table's rows: each loader case against the bare keyset query of the same run; the export's memory. */
export const syncLogBench: Bench = {
  name: "sync log",
  async run(ctx) {
    const db = await throwawayDatabase(ctx.adminUrl, "log");
    const app = openDatabase({ url: db.url, poolSize: 4 });
    try {
      await app.ready;
      const { lines, exported } = await benchSyncLog(app.prisma);
      const [baseline, ...loaders] = lines;
      const rows: Row[] = loaders.map((l) => ({
        figure: `${l.name} (p95)`,
        value: l.p95,
        unit: "ms",
        baselineLabel: `${baseline.name} (p95)`,
        baseline: baseline.p95,
        ratio: l.p95 / baseline.p95,
        target: "p95 < 300 ms",
        met: l.p95 < 300,
      }));
      rows.push({
        figure: `CSV export of ${exported.rows} rows: live heap growth`,
        value: exported.growthMb,
        unit: "MB",
        baselineLabel: "growth after the first 10% of rows",
        baseline: exported.earlyMb,
        ratio: exported.earlyMb > 0 ? exported.growthMb / exported.earlyMb : 1,
        target: "bounded (no growth with rows)",
        met: exported.bounded,
        note: `${exported.seconds.toFixed(1)} s`,
      });
      return rows;
    } finally {
      await app.close();
      await db.drop();
    }
  },
};
