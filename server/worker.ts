// `npm run worker`: the sync worker as its own process, for scaling workers apart from the web server.
// Needs DATABASE_URL (PostgreSQL): PGlite is one process's database, and there the worker runs inside the app.
// Start as many as you like; they share the queue safely (FOR UPDATE SKIP LOCKED leases). Stops cleanly on
// SIGTERM/SIGINT: no new leases, running jobs finish, then the database closes.
import { openDatabase } from "../app/db/connect.server";
import { env } from "../app/env.server";
import { createSyncDeps, syncLog } from "../app/runtime/worker-deps.server";
import { startWorker } from "../app/sync/worker.server";

const config = env();
if (!config.DATABASE_URL) {
  console.error("npm run worker needs DATABASE_URL (PostgreSQL). With the embedded PGlite database the worker runs inside the app.");
  process.exit(2);
}

const db = openDatabase({ url: config.DATABASE_URL, poolSize: config.WORKER_POOL_SIZE });
await db.ready;
globalThis.__appDatabase = db; // Shopify's session storage (Admin API calls) uses this connection too
const worker = startWorker(createSyncDeps(db.prisma, { postgres: true }), {
  concurrency: config.WORKER_CONCURRENCY,
  pollMs: config.WORKER_POLL_MS,
  leaseMs: config.WORKER_LEASE_MS,
});
console.log(`worker ${worker.id} ready`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  syncLog().info({ signal }, "stopping worker");
  await worker.stop();
  await db.close();
  process.exit(0);
}
process.once("SIGTERM", () => void stop("SIGTERM"));
process.once("SIGINT", () => void stop("SIGINT"));
