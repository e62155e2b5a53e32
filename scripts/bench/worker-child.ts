// A sync worker process for the bench: the worker a deployment runs (`npm run worker`), with the app's own
// collaborators (app/runtime/worker-deps.server.ts): settings and grants read and decrypted from the database
// (connected-shops.ts writes them), the rate scheduler, the address guard (the emulator is on loopback:
// ALLOW_LOOPBACK_SERVICE_URLS), no periodic housekeeping. PostgreSQL (DATABASE_URL) or a PGlite data directory
// (BENCH_PGLITE_DIR). Prints `ready`.
import { openDatabase } from "../../app/db/connect.server";
import { createSyncDeps } from "../../app/runtime/worker-deps.server";
import { startWorker } from "../../app/sync/job-runner.server";
import { workerPace } from "../../app/runtime/sync-worker.server";
import { serviceScheduler } from "../../app/service/client.server";

const db = process.env.BENCH_PGLITE_DIR
  ? openDatabase({ dataDir: process.env.BENCH_PGLITE_DIR })
  : openDatabase({ url: process.env.DATABASE_URL!, poolSize: Number(process.env.WORKER_POOL_SIZE) });
await db.ready;
// Paced as `npm run worker` is (app/runtime/sync-worker.server.ts): WORKER_CONCURRENCY the floor, unset the default.
const pace = workerPace(db, process.env.WORKER_CONCURRENCY ? Number(process.env.WORKER_CONCURRENCY) : undefined);
const start = () =>
  startWorker(createSyncDeps(db.prisma, { postgres: db.kind === "postgres", pace }), {
    concurrency: () => pace.limit(),
    onJobDone: (seconds) => pace.observeJob(seconds),
    pollMs: 20,
  });
// BENCH_START_ON_SIGNAL: ready first, work on SIGUSR2, so several processes start their work together (the backlog
// section: the first process must not drain a small backlog while the second is still loading).
let worker: ReturnType<typeof start> | undefined;
if (process.env.BENCH_START_ON_SIGNAL) {
  const hold = setInterval(() => undefined, 60_000); // nothing else keeps the process alive until then
  process.once("SIGUSR2", () => {
    clearInterval(hold);
    worker = start();
  });
} else worker = start();
console.log("ready");
// BENCH_TRACE=1: the pace and the scheduler's queue every half second, on stderr (printed by the section).
if (process.env.BENCH_TRACE)
  setInterval(() => {
    process.stderr.write(`trace ${Date.now() % 100000} limit ${pace.limit()} waiting ${serviceScheduler().queued()}\n`);
  }, 500).unref();
process.once(
  "SIGTERM",
  () => void (worker?.stop() ?? Promise.resolve()).then(() => db.close()).then(() => process.exit(0)),
);
