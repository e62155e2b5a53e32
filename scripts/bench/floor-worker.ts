// The worker's floor for the bench: what a bare worker must do per import, with `pg` (or PGlite) directly and the
// same concurrency as the real one: lease one queued job with SKIP LOCKED (joined to its delivery's payload), POST
// the order to the service, mark the job done. No routing, no record, no attempt log, no fairness between shops,
// no per-order order: whatever the real worker costs beyond this is its own. Prints `ready`.
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { PGLITE_SETTINGS } from "../../app/db/connect.server";
import { mapOrder } from "../../app/sync/mapping.server";

const url = process.env.BENCH_SERVICE_URL!;
const token = process.env.BENCH_TOKEN!;
const concurrency = Number(process.env.WORKER_CONCURRENCY ?? 32);
const id = `floor-${process.pid}`;

type Query = <T>(sql: string, params: unknown[]) => Promise<T[]>;
let query: Query;
let close: () => Promise<void>;
if (process.env.BENCH_PGLITE_DIR) {
  // The app's PGlite settings (its buffer pool), so the two processes' RSS compare like for like.
  const startParams = [
    ...PGlite.defaultStartParams,
    ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ];
  const db = new PGlite(process.env.BENCH_PGLITE_DIR, { startParams });
  await db.waitReady;
  query = async <T>(sql: string, params: unknown[]) => (await db.query<T>(sql, params)).rows;
  close = () => db.close();
} else {
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.WORKER_POOL_SIZE ?? 16),
  });
  query = async <T>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as T[];
  close = () => pool.end();
}

const LEASE = `
  UPDATE "Job" j SET status = 'running', "leasedBy" = $1, attempts = attempts + 1
  FROM (SELECT id FROM "Job" WHERE status = 'queued' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED) c, "WebhookDelivery" d
  WHERE j.id = c.id AND d.id = j."deliveryId"
  RETURNING j.id, d.payload`;

let stopping = false;
async function loop() {
  while (!stopping) {
    const [job] = await query<{ id: string; payload: unknown }>(LEASE, [id]);
    if (!job) {
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    const mapped = mapOrder(
      (typeof job.payload === "string" ? JSON.parse(job.payload) : job.payload) as Parameters<typeof mapOrder>[0],
    );
    if (!mapped.ok) throw new Error(`the bench's order does not map: ${mapped.reason}`);
    const body = JSON.stringify(mapped.request);
    const response = await fetch(`${url}/api/v1/orders`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        "idempotency-key": randomUUID(),
      },
      body,
    });
    await response.text();
    await query(
      `UPDATE "Job" SET status = $2, "finishedAt" = now() AT TIME ZONE 'UTC', "leasedBy" = NULL WHERE id = $1 AND "leasedBy" = $3`,
      [job.id, response.ok ? "done" : "failed", id],
    );
  }
}

// BENCH_START_ON_SIGNAL: ready first, work on SIGUSR2 (as worker-child.ts).
let loops: Promise<void>[] = [];
const start = () => void (loops = Array.from({ length: concurrency }, () => loop()));
if (process.env.BENCH_START_ON_SIGNAL) {
  const hold = setInterval(() => undefined, 60_000); // nothing else keeps the process alive until then
  process.once("SIGUSR2", () => {
    clearInterval(hold);
    start();
  });
} else start();
console.log("ready");
process.once("SIGTERM", () => {
  stopping = true;
  void Promise.all(loops)
    .then(close)
    .then(() => process.exit(0));
});
