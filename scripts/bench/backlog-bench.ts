// The worker at a backlog: 1,000, 10,000 and 100,000 queued order imports (all of one shop, and spread over 1,000
// shops), on PostgreSQL and PGlite. Each level is measured on the real worker processes (worker-child.ts) and on the
// bare floor (floor-worker.ts: lease with SKIP LOCKED, POST the same import, mark done) in the same run, against the
// emulator in this process with its rate limit off: imports/s over a window of the first imports, and CPU (user +
// system) of the worker processes per 1,000 imports. The backlog is written with SQL (backlog.ts), not through
// webhooks, and topped up to its level before each measurement.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PrismaClient } from "@prisma/client";
import { openDatabase, type Database } from "../../app/db/connect.server";
import { DEFAULT_CONFIG } from "../../emulator/config";
import { emulatorInternals, startEmulator, type RunningEmulator } from "../../emulator/server";
import { backlogShop, fillImports } from "./backlog";
import { connectShops } from "./connected-shops";
import { appEnv, cpuSeconds, ratioRow, startNode, throwawayDatabase, type Bench, type Child, type Row } from "./common";

const LEVELS = (process.env.BENCH_BACKLOGS ?? "1000,10000,100000").split(",").map(Number);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,pglite").split(",") as ("postgres" | "pglite")[];
const SHOPS = (process.env.BENCH_BACKLOG_SHOPS ?? "1,1000").split(",").map(Number);
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? "32";
const POOL = process.env.WORKER_POOL_SIZE ?? "16";
/** Imports timed per measurement (at most half the level, so the backlog stays near its level). */
const WINDOW = {
  postgres: Number(process.env.BENCH_BACKLOG_WINDOW_PG ?? 1000),
  pglite: Number(process.env.BENCH_BACKLOG_WINDOW_PGLITE ?? 300),
};
/** Processes: two on PostgreSQL (shows whether the machine or the worker is the ceiling); PGlite has one owner. */
const PROCESSES = { postgres: 2, pglite: 1 };
const CUSTOMER = "7000000001";

const imported = (emulator: RunningEmulator) =>
  emulatorInternals(emulator).store.requests.reduce(
    (n, r) => n + (r.path === "/api/v1/orders" && r.status === 201 ? 1 : 0),
    0,
  );

interface Measured {
  perSecond: number;
  cpuPer1000: number;
  rss: number;
}

/** Starts the processes, waits for `window` more imports at the emulator, and times them (from the first one seen). */
async function measure(
  emulator: RunningEmulator,
  script: string,
  env: Record<string, string>,
  processes: number,
  window: number,
  flags: string[] = [],
): Promise<Measured> {
  const children: Child[] = [];
  try {
    for (let i = 0; i < processes; i++)
      children.push(await startNode(script, [], { ...env, BENCH_START_ON_SIGNAL: "1" }, flags));
    const base = imported(emulator);
    for (const child of children) child.process.kill("SIGUSR2"); // all at once, once all are up
    // the window opens at the first import after every process is up, so start-up is not in it
    let start = base;
    const deadline = Date.now() + 600_000;
    while ((start = imported(emulator)) === base) {
      if (Date.now() > deadline) throw new Error(`${script}: no import within 10 minutes`);
      const dead = children.find((c) => c.process.exitCode !== null || c.process.signalCode !== null);
      if (dead)
        throw new Error(
          `${script} ended (${dead.process.exitCode ?? dead.process.signalCode}): ${dead.output().slice(-2000)}`,
        );
      await new Promise((r) => setTimeout(r, 5));
    }
    const t0 = performance.now();
    const cpu0 = children.reduce((s, c) => s + cpuSeconds(c.process.pid!), 0);
    let now = start;
    while ((now = imported(emulator)) < start + window) {
      if (Date.now() > deadline) throw new Error(`${script}: ${now - start}/${window} imports within 10 minutes`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = children.reduce((s, c) => s + cpuSeconds(c.process.pid!), 0) - cpu0;
    return {
      perSecond: (now - start) / seconds,
      cpuPer1000: (cpu / (now - start)) * 1000,
      rss: Math.max(...children.map((c) => c.peakRssMiB())),
    };
  } finally {
    for (const child of children) await child.stop();
  }
}

interface Target {
  open(): Promise<Database>;
  env: Record<string, string>;
  drop(): Promise<void>;
}

async function target(backend: "postgres" | "pglite", adminUrl: string): Promise<Target> {
  if (backend === "postgres") {
    const db = await throwawayDatabase(adminUrl, "backlog");
    return {
      open: async () => openDatabase({ url: db.url, poolSize: 2 }),
      env: { DATABASE_URL: db.url },
      drop: () => db.drop(),
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "bench-backlog-"));
  return {
    open: async () => openDatabase({ dataDir: dir }),
    env: { BENCH_PGLITE_DIR: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Opens the database, runs `work`, closes it (PGlite has one owner at a time: the children need it closed). */
async function withDb<T>(t: Target, work: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const db = await t.open();
  try {
    await db.ready;
    return await work(db.prisma);
  } finally {
    await db.close();
  }
}

const queuedCount = (prisma: PrismaClient) => prisma.job.count({ where: { status: "queued" } });

export const backlogBench: Bench = {
  name: "backlog",
  async run(ctx) {
    const rows: Row[] = [];
    const emulator = await startEmulator({
      port: 0,
      config: { ...DEFAULT_CONFIG, rate_limit: { capacity: 1e9, leak_per_second: 1e9 } },
    });
    const tokens = emulatorInternals(emulator).oauth.issueTokens(
      { id: randomUUID(), clientId: "sandbox-client", workspaceId: "ws-acme", revoked: false },
      ["orders:write", "shipments:write"],
      Date.now(),
    );
    try {
      for (const backend of BACKENDS) {
        for (const shops of SHOPS) {
          const t = await target(backend, ctx.adminUrl);
          const prefix = `b${shops}`;
          try {
            // The worker processes run the app's own collaborators: every shop's settings and its customer's grant
            // stored sealed with their key (the floor posts with one token it is handed).
            const env = appEnv({
              ...t.env,
              BENCH_SERVICE_URL: emulator.url,
              BENCH_TOKEN: tokens.access_token,
              ALLOW_LOOPBACK_SERVICE_URLS: "true",
              WORKER_CONCURRENCY: CONCURRENCY,
              WORKER_POOL_SIZE: POOL,
            });
            const shopNames = Array.from({ length: shops }, (_, n) => backlogShop(prefix, n));
            await withDb(t, (prisma) => connectShops(prisma, emulator, shopNames, CUSTOMER, env.ENCRYPTION_KEYS));
            let from = 0;
            const topUp = (level: number) =>
              withDb(t, async (prisma) => {
                const missing = level - (await queuedCount(prisma));
                if (missing > 0)
                  await fillImports(prisma, { count: missing, shops, prefix, from, customerId: CUSTOMER });
                from += Math.max(0, missing);
                if (backend === "postgres") await prisma.$executeRawUnsafe(`ANALYZE "Job"`);
              });
            const paces: number[] = [];
            for (const level of LEVELS) {
              const window = Math.min(WINDOW[backend], Math.floor(level / 2));
              const label = `${backend === "postgres" ? "PG" : "PGlite"}, ${level.toLocaleString("en")} queued, ${shops.toLocaleString("en")} shop${shops > 1 ? "s" : ""}`;
              ctx.log(`backlog: ${label}: filling`);
              await topUp(level);
              ctx.log(`backlog: ${label}: worker, ${window} imports`);
              const worker = await measure(
                emulator,
                "scripts/bench/worker-child.ts",
                env,
                PROCESSES[backend],
                window,
                ctx.nodeFlags,
              );
              await topUp(level);
              ctx.log(`backlog: ${label}: floor`);
              const floor = await measure(emulator, "scripts/bench/floor-worker.ts", env, PROCESSES[backend], window);
              paces.push(worker.perSecond);
              rows.push(
                ratioRow({
                  figure: `worker ${label} (imports/s)`,
                  value: worker.perSecond,
                  unit: "/s",
                  baselineLabel: "floor",
                  baseline: floor.perSecond,
                  target: "report",
                  met: true,
                  note: `${PROCESSES[backend]} process(es), concurrency ${CONCURRENCY}; CPU per 1,000 imports ${worker.cpuPer1000.toFixed(2)} s (floor ${floor.cpuPer1000.toFixed(2)} s); peak RSS ${worker.rss.toFixed(0)} MiB (floor ${floor.rss.toFixed(0)} MiB)`,
                }),
                ratioRow({
                  figure: `worker CPU/1,000 imports, ${label} (s)`,
                  value: worker.cpuPer1000,
                  unit: "s",
                  baselineLabel: "floor",
                  baseline: floor.cpuPer1000,
                  target: "<= 2x floor",
                  met: worker.cpuPer1000 <= 2 * floor.cpuPer1000,
                }),
              );
              if (level === LEVELS[LEVELS.length - 1]) {
                rows.push(
                  ratioRow({
                    figure: `peak RSS of the worker, ${label} (MiB)`,
                    value: worker.rss,
                    unit: "MiB",
                    baselineLabel: "floor worker",
                    baseline: floor.rss,
                    target: backend === "pglite" ? "< 300 MiB" : "report",
                    met: backend === "pglite" ? worker.rss < 300 : true,
                  }),
                );
              }
              emulatorInternals(emulator).store.requests.length = 0;
            }
            if (paces.length > 1) {
              const label = `${backend === "postgres" ? "PG" : "PGlite"}, ${shops.toLocaleString("en")} shop${shops > 1 ? "s" : ""}`;
              rows.push(
                ratioRow({
                  figure: `worker pace at ${LEVELS[LEVELS.length - 1].toLocaleString("en")} vs ${LEVELS[0].toLocaleString("en")} queued, ${label}`,
                  value: paces[paces.length - 1],
                  unit: "/s",
                  baselineLabel: `at ${LEVELS[0].toLocaleString("en")}`,
                  baseline: paces[0],
                  target: ">= 0.8x",
                  met: paces[paces.length - 1] >= 0.8 * paces[0],
                }),
              );
            }
          } finally {
            await t.drop();
          }
        }
      }
    } finally {
      await emulator.close();
    }
    return rows;
  },
};
