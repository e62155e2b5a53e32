// `npm run worker` (tsx) / `npm run start:worker` (production: `npm run build` bundles this file to
// build/server-worker.js, run with plain `node`): the sync worker as its own process, for scaling workers apart
// from the web server. Needs DATABASE_URL (PostgreSQL): PGlite is one process's database, and there the worker
// runs inside the app. Start as many as you like; they share the queue safely (FOR UPDATE SKIP LOCKED leases).
// Stops cleanly on SIGTERM/SIGINT: no new leases, running jobs finish, then the database closes.
// NODE_ENV defaults to production (./production-env, first, before anything reads it).
import "./production-env";
import { openConfiguredDatabase, setDatabase } from "../app/db.server";
import { env } from "../app/env.server";
import { syncLog } from "../app/runtime/worker-deps.server";
import { startSyncWorker } from "../app/runtime/worker.server";
import { exitOnCrash } from "./crash";

const config = env();
if (!config.DATABASE_URL) {
  console.error("npm run worker needs DATABASE_URL (PostgreSQL). With the embedded PGlite database the worker runs inside the app.");
  process.exit(2);
}

const db = openConfiguredDatabase({ poolSize: config.WORKER_POOL_SIZE });
await db.ready;
setDatabase(db); // Shopify's session storage (Admin API calls) uses this connection too
const worker = startSyncWorker(db, {
  concurrency: config.WORKER_CONCURRENCY,
  pollMs: config.WORKER_POLL_MS,
  leaseMs: config.WORKER_LEASE_MS,
});
console.log(`worker ${worker.id} ready`);

let stopping = false;
async function stop(signal: string, code: number) {
  if (stopping) return;
  stopping = true;
  syncLog().info({ signal }, "stopping worker");
  await worker.stop().catch(() => undefined);
  await db.close().catch(() => undefined);
  process.exit(code);
}
process.once("SIGTERM", () => void stop("SIGTERM", 0));
process.once("SIGINT", () => void stop("SIGINT", 0));
exitOnCrash((err) => syncLog().fatal({ err }, "uncaught exception: stopping"), () => stop("uncaughtException", 1));
