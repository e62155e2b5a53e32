// The web process's wiring: the database it opened once, the webhook intake over it, and the sync worker beside
// the server (unless WORKER_IN_PROCESS=false, for deployments that scale workers apart with `npm run worker`).
// server/main.ts starts it by name through the build's entry module (app/entry.server.tsx re-exports
// startWebProcess) and stops it on shutdown; `remix vite:dev`, which has no main, starts it from the entry.
import { openDatabase, type Database } from "../db/connect.server";
import prisma, { database, setDatabase } from "../db.server";
import { env } from "../env.server";
import { errorMessage } from "../lib/errors";
import { logger } from "../lib/logger.server";
import { memoryBudgets, setBudgets, SharedBudget } from "../lib/shared-budget.server";
import { onAppInstalled } from "../privacy/lifecycle.server";
import { onShopAuthenticated } from "../shopify.server";
import { createSyncIntake, type SyncIntake } from "../sync/intake.server";
import { createOperations, type Operations } from "./operations.server";
import { startSyncWorker } from "./sync-worker.server";
import { shareServiceRate } from "../sync/shared-rate.server";

export interface WebProcessOptions {
  /** The database to use (tests pass theirs); by default the configured one is opened, once. */
  database?: Database;
  /** Run the sync worker in this process; default WORKER_IN_PROCESS. */
  worker?: boolean;
}

export interface WebProcess {
  database: Database;
  /** The webhook intake over that database (the sync webhooks.* routes answer through it). */
  intake: SyncIntake;
  /** Health and metrics of this process (/healthz, /readyz, /metrics; docs/operations.md); stop() marks it draining. */
  operations: Operations;
  /** Where the operations listener goes (OPS_PORT, OPS_HOST), when one is configured. */
  operationsAddress?: { port: number; host: string };
  /** Stops the worker, writes pending intake, closes the database (in that order). */
  stop(): Promise<void>;
}

let current: WebProcess | undefined;

/** The operations of the web process this module started (undefined before it started). */
export const webOperations = (): Operations | undefined =>
  current?.operations ?? globalThis.__devWebProcess?.operations;

/** The webhook intake of the web process this module started (the sync webhooks.* routes answer through it). */
export function syncIntake(): SyncIntake {
  const web = current ?? globalThis.__devWebProcess;
  if (!web) throw new Error("No web process yet: server/main.ts starts it (startWebProcess) before it serves");
  return web.intake;
}

/**
 * Shopify's library, told what the app does when a shop authenticates: a reinstall resumes its waiting jobs (in the
 * process's database, where the library's session storage wrote the new session).
 */
function wireShopify(): void {
  onShopAuthenticated((shop) => onAppInstalled(prisma, shop));
}

export function startWebProcess(options: WebProcessOptions = {}): WebProcess {
  const db = options.database ?? openDatabase();
  setDatabase(db);
  // Continue cart's and the shopper routes' budgets: one for every process on PostgreSQL, this process's on PGlite.
  setBudgets(db.kind === "postgres" ? new SharedBudget(db.prisma) : memoryBudgets());
  wireShopify();
  // Continue cart's handoffs draw on the service's rate that every process shares (app/sync/shared-rate.server.ts).
  if (db.kind === "postgres") shareServiceRate(db.prisma);
  const inProcess = options.worker ?? env().WORKER_IN_PROCESS === "true";
  const worker = inProcess
    ? startSyncWorker(db, { workerId: `web-${process.pid}`, concurrency: env().WORKER_CONCURRENCY })
    : undefined;
  const operations = createOperations({ database: db, worker });
  const intake = createSyncIntake(db.prisma, { postgres: db.kind === "postgres" });
  return (current = {
    database: db,
    intake,
    operations,
    operationsAddress: env().OPS_PORT === undefined ? undefined : { port: env().OPS_PORT!, host: env().OPS_HOST },
    async stop() {
      operations.markDraining();
      const step = (name: string, run: () => Promise<void>) =>
        run().catch((error: unknown) =>
          logger("app").error({ err: errorMessage(error), step: name }, "shutdown step failed"),
        );
      if (worker) await step("worker", () => worker.stop());
      await step("intake", () => intake.flush());
      await step("database", () => db.close());
    },
  });
}

declare global {
  // Development only: HMR re-evaluates the entry; the process must start once.
  var __devWebProcess: WebProcess | undefined;
}

/** `remix vite:dev` has no main to call startWebProcess: the entry does, once, and SIGTERM/SIGINT stop it. */
export function startDevWebProcess(): void {
  if (process.env.NODE_ENV !== "development") return;
  if (globalThis.__devWebProcess) return wireShopify(); // a shopify.server.ts reloaded by HMR starts without it
  const web = (globalThis.__devWebProcess = startWebProcess({ database: database() }));
  const shutdown = (code: number) => void web.stop().then(() => process.exit(code));
  process.once("SIGTERM", () => shutdown(0));
  process.once("SIGINT", () => shutdown(130));
}
