// Work that runs beside the web server in the same process: the sync worker (unless WORKER_IN_PROCESS=false,
// for deployments that scale workers apart with `npm run worker`) and a clean shutdown on SIGTERM.
import { database } from "../db.server";
import { env } from "../env.server";
import { errorMessage } from "../lib/errors";
import { logger } from "../lib/logger.server";
import { createSyncDeps } from "./worker-deps.server";
import { startWorker } from "../sync/worker.server";

type Stopper = () => Promise<void>;
const stoppers: Stopper[] = [];

/** Registers something to stop (in reverse order) before the database closes on shutdown. */
export function onShutdown(stop: Stopper) {
  stoppers.unshift(stop);
}

let started = false;
export function startBackgroundServices() {
  if (started || process.env.NODE_ENV === "test") return;
  started = true;
  const shutdown = async (signal: string) => {
    for (const stop of stoppers) await stop().catch((error) => logger("app").error({ err: errorMessage(error) }, "shutdown step failed"));
    await database().close();
    process.exit(signal === "SIGINT" ? 130 : 0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  if (env().WORKER_IN_PROCESS === "true") void startInProcessWorker();
}

async function startInProcessWorker() {
  const db = database();
  const worker = startWorker(createSyncDeps(db.prisma, { postgres: db.kind === "postgres" }), {
    workerId: `web-${process.pid}`,
    concurrency: env().WORKER_CONCURRENCY,
  });
  onShutdown(() => worker.stop());
}
