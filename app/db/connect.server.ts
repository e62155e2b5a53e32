// Opens the app's database: real PostgreSQL when a URL is given, embedded PGlite otherwise; by default the one the
// configuration names. Both get the same migrations before the first query. The one way every process opens it:
// the app (app/runtime/web.server.ts), the worker (server/worker.ts), the scripts and the demo. No Remix here.
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import { mkdirSync } from "node:fs";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { env } from "../env.server";
import { logger } from "../lib/logger.server";
import { applyMigrations, readMigrations } from "./migrations.server";
import { attachDriver } from "./sql.server";

/** An open database: its client (statements in SQL go through rawQuery, app/db/sql.server.ts) and its lifecycle. */
export interface Database {
  prisma: PrismaClient;
  kind: "postgres" | "pglite";
  /** Resolves once pending migrations are applied. Queries through `prisma` wait for it on their own. */
  ready: Promise<void>;
  /** This process's connections (the metrics' database pool family); PGlite is one connection in the process. */
  pool(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  max: number;
  /** Open connections and how many of them are idle, and queries waiting for one (PostgreSQL's pool only). */
  open?: number;
  idle?: number;
  waiting?: number;
}

export interface OpenOptions {
  /** PostgreSQL URL; when absent, PGlite is used (in `dataDir`, or `pglite`, or in memory). */
  url?: string;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string;
  /** An existing PGlite instance (tests restore one from a migrated dump). */
  pglite?: PGlite;
  migrationsDir?: string;
  /** Pool size per process on PostgreSQL. */
  poolSize?: number;
  /** PostgreSQL settings for PGlite (`-c name=value` at its start); default PGLITE_SETTINGS. */
  pgliteSettings?: Record<string, string>;
}

/**
 * PGlite runs PostgreSQL inside this process, with a server's defaults: shared_buffers 128MB, all of it touched at
 * start, so the buffer pool alone made a third of the web process's RSS (scripts/bench/pglite-memory.ts measures
 * it; the figures are in docs/performance.md, "Memory"). The data directory is in the OS's page cache anyway, so a
 * small pool costs the one-shop deployments PGlite serves little speed.
 */
export const PGLITE_SETTINGS: Record<string, string> = {
  shared_buffers: "16MB",
  wal_buffers: "1MB",
  temp_buffers: "2MB",
  work_mem: "2MB",
  maintenance_work_mem: "16MB",
};

const pgliteStartParams = (settings: Record<string, string>) => [
  ...PGlite.defaultStartParams,
  ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
];

export async function migratePostgres(url: string, migrationsDir?: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await applyMigrations(client, await readMigrations(migrationsDir));
  } finally {
    await client.end();
  }
}

/** The database the configuration names: PostgreSQL at DATABASE_URL, else PGlite in PGLITE_DATA_DIR. */
const configured = (): OpenOptions => ({ url: env().DATABASE_URL, dataDir: env().PGLITE_DATA_DIR });

/** Opens a database (once per process, or per test: the caller keeps and closes it); by default the configured one. */
export function openDatabase(options: OpenOptions = configured()): Database {
  if (options.url) {
    const url = options.url;
    const ready = migratePostgres(url, options.migrationsDir).then(() => undefined);
    // One pool for Prisma and the driver-level statements, so a process holds `poolSize` connections in all.
    const max = options.poolSize ?? 10;
    const pool = new pg.Pool({ connectionString: url, max });
    // An idle connection the server closed (restart, failover) is dropped by the pool and replaced on demand; without
    // a listener its 'error' would end the process (Prisma listens only while it is connected).
    pool.on("error", (error) => logger("db").warn({ err: error.message }, "idle database connection lost"));
    const prisma = gateOn(ready, new PrismaClient({ adapter: new PrismaPg(pool) }));
    attachDriver(prisma, { pool }, ready);
    return {
      prisma,
      kind: "postgres",
      ready,
      pool: () => ({ max, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      async close() {
        await prisma.$disconnect();
        if (!pool.ended) await pool.end();
      },
    };
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const pglite =
    options.pglite ??
    new PGlite(options.dataDir, { startParams: pgliteStartParams(options.pgliteSettings ?? PGLITE_SETTINGS) });
  const ready = (async () => {
    await pglite.waitReady;
    await applyMigrations(pglite, await readMigrations(options.migrationsDir));
  })();
  const prisma = gateOn(ready, new PrismaClient({ adapter: new PrismaPGlite(pglite) }));
  attachDriver(prisma, { pglite }, ready);
  return {
    prisma,
    kind: "pglite",
    ready,
    pool: () => ({ max: 1 }),
    async close() {
      await prisma.$disconnect();
      if (!pglite.closed) await pglite.close();
    },
  };
}

// Every query waits for the migrations, so modules can use the client at import time without a start hook.
function gateOn(ready: Promise<void>, client: PrismaClient): PrismaClient {
  ready.catch(() => {}); // surfaced by the first query and by /healthz, not as an unhandled rejection
  const gated = client.$extends({
    query: {
      async $allOperations({ args, query }) {
        await ready;
        return query(args);
      },
    },
  });
  return gated as unknown as PrismaClient;
}
