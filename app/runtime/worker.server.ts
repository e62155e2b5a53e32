// The sync worker as either process runs it: the real collaborators (worker-deps.server.ts) and the periodic
// housekeeping (app/privacy), on the database the process opened. The web process calls this when
// WORKER_IN_PROCESS is true; server/worker.ts (`npm run worker`) always.
import type { Database } from "../db/connect.server";
import { housekeepingTask } from "../privacy/housekeeping.server";
import { startWorker, type RunningWorker, type WorkerOptions } from "../sync/worker.server";
import { createSyncDeps } from "./worker-deps.server";

export function startSyncWorker(db: Database, options: Omit<WorkerOptions, "periodic"> = {}): RunningWorker {
  return startWorker(createSyncDeps(db.prisma, { postgres: db.kind === "postgres" }), {
    ...options,
    periodic: [housekeepingTask(db.prisma)],
  });
}
