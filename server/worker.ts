// `npm run worker` (tsx) / `npm run start:worker` (production: `npm run build` bundles this file to
// build/server-worker.js, run with plain `node`): the sync worker as its own process, for scaling workers apart
// from the web server. Needs DATABASE_URL (PostgreSQL): PGlite is one process's database, and there the worker
// runs inside the app. Start as many as you like; they share the queue safely (FOR UPDATE SKIP LOCKED leases).
// Stops cleanly on SIGTERM/SIGINT: no new leases, running jobs finish, then the database closes.
// Health and metrics (/healthz, /readyz, /metrics) on OPS_PORT (default 9464; 0 picks a free one), OPS_HOST
// (default 127.0.0.1): docs/operations.md.
// NODE_ENV defaults to production (./production-env, first, before anything reads it).
import "./production-env";
import { openDatabase } from "../app/db/connect.server";
import { setDatabase } from "../app/db.server";
import { env } from "../app/env.server";
import { syncLog } from "../app/runtime/worker-deps.server";
import { createOperations } from "../app/runtime/operations.server";
import { startSyncWorker } from "../app/runtime/sync-worker.server";
import { exitOnCrash } from "./crash";
import { listenForOperations } from "./operations-listener";

/** A worker's operations port when OPS_PORT is not set (a second worker on the same host sets its own). */
const DEFAULT_OPS_PORT = 9464;

const config = env();
if (!config.DATABASE_URL) {
  console.error(
    "npm run worker needs DATABASE_URL (PostgreSQL). With the embedded PGlite database the worker runs inside the app.",
  );
  process.exit(2);
}

const db = openDatabase({ url: config.DATABASE_URL, poolSize: config.WORKER_POOL_SIZE });
await db.ready;
setDatabase(db); // Shopify's session storage (Admin API calls) uses this connection too
const worker = startSyncWorker(db, {
  concurrency: config.WORKER_CONCURRENCY,
  pollMs: config.WORKER_POLL_MS,
  leaseMs: config.WORKER_LEASE_MS,
});
const operations = createOperations({ database: db, worker });
const address = { port: config.OPS_PORT ?? DEFAULT_OPS_PORT, host: config.OPS_HOST };
const listening = await listenForOperations(operations, address).catch((err: Error) => {
  // The worker's work does not depend on it: it runs on, unwatched, and says so.
  syncLog().error(
    { err: err.message, port: address.port },
    "no health and metrics listener (OPS_PORT): set a free port",
  );
  return undefined;
});
console.log(`worker ${worker.id} ready${listening ? `; health and metrics on ${listening.url}` : ""}`);

let stopping = false;
async function stop(signal: string, code: number) {
  if (stopping) return;
  stopping = true;
  operations.markDraining();
  syncLog().info({ signal }, "stopping worker");
  await worker.stop().catch(() => undefined);
  await db.close().catch(() => undefined);
  process.exit(code);
}
process.once("SIGTERM", () => void stop("SIGTERM", 0));
process.once("SIGINT", () => void stop("SIGINT", 0));
exitOnCrash(
  (err) => syncLog().fatal({ err }, "uncaught exception: stopping"),
  () => stop("uncaughtException", 1),
);
