// BENCH_QUICK=1: every section at small sizes, to check that `npm run bench` runs to its end and the table reads
// right (minutes instead of most of an hour); the figures are not the ones to quote. Imported by main.ts before
// the sections, whose sizes are read when they load; a size set in the environment still wins.
const QUICK: Record<string, string> = {
  BENCH_INTAKE_REQUESTS: "1500",
  BENCH_METRICS_ROUNDS: "2",
  BENCH_DRAIN_ORDERS: "300",
  BENCH_THROUGHPUT_ORDERS: "300",
  BENCH_BACKLOGS: "200,2000",
  BENCH_BACKLOG_SHOPS: "1,100",
  BENCH_BACKLOG_WINDOW_PG: "100",
  BENCH_BACKLOG_WINDOW_PGLITE: "50",
  BENCH_LOG_RECORDS: "10000",
  BENCH_LOG_N: "50",
  BENCH_N: "100",
  BENCH_BACKFILL_ORDERS: "30",
  BENCH_BULK_CUSTOMERS: "40",
  BENCH_BULK_PAGED_SAMPLE: "10",
  BENCH_SCALE_ORDERS: "90",
  BENCH_PACE_ORDERS: "200",
};
if (process.env.BENCH_QUICK) for (const [name, value] of Object.entries(QUICK)) process.env[name] ??= value;
