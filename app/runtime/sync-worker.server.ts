// The sync worker as either process runs it: the real collaborators (worker-deps.server.ts) and the periodic
// housekeeping (app/privacy), on the database the process opened. The web process calls this when
// WORKER_IN_PROCESS is true; server/worker.ts (`npm run worker`) always. Its concurrency is paced by the service's
// rate and answer time (app/sync/pace.server.ts): `concurrency` is the floor, WORKER_MAX_CONCURRENCY and the
// database pool the ceiling.
import type { Database } from "../db/connect.server";
import { env } from "../env.server";
import { housekeepingTask } from "../privacy/housekeeping.server";
import { Pace } from "../sync/pace.server";
import { serviceScheduler } from "../service/client.server";
import { startWorker, type RunningWorker, type WorkerOptions } from "../sync/job-runner.server";
import { boundHeapGrowth } from "./heap.server";
import { createSyncDeps } from "./worker-deps.server";

/** The worker's pace on `db`: at least `min` jobs at once, at most what memory and the database pool allow. */
export function workerPace(db: Database, min: number = env().WORKER_CONCURRENCY): Pace {
  const max = Math.max(min, env().WORKER_MAX_CONCURRENCY);
  const scheduler = serviceScheduler();
  return new Pace({ min, max, connections: db.pool().max, rateOf: (client) => scheduler.ratePerSecond(client) });
}

export function startSyncWorker(
  db: Database,
  options: Omit<WorkerOptions, "periodic" | "concurrency"> & { concurrency?: number } = {},
): RunningWorker {
  boundHeapGrowth(); // a bulk backfill's file read allocates for minutes (heap.server.ts)
  const pace = workerPace(db, options.concurrency);
  return startWorker(createSyncDeps(db.prisma, { postgres: db.kind === "postgres", pace }), {
    ...options,
    concurrency: () => pace.limit(),
    onJobDone: (seconds) => pace.observeJob(seconds),
    periodic: [housekeepingTask(db.prisma)],
  });
}
