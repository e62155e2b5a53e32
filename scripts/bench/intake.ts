// Webhook intake over HTTP: the production server (npm run build; build/server-main.js, worker not in process) against
// the floor (floor-server.ts) on the same PostgreSQL, then on PGlite. Two loads of signed orders/create deliveries
// from this process: open loop at a steady rate (the latency a shop's deliveries meet), then autocannon's 16
// connections as fast as the server answers (the throughput; its latency is mostly the queue those 16 build).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  appEnv,
  backendCpu,
  freePort,
  type Child,
  median,
  profileWindow,
  ratioRow,
  signedDelivery,
  startNode,
  throwawayDatabase,
  type Bench,
  type Row,
} from "./common";
import { measuredLoad, pacedLoad } from "./load";

const CONNECTIONS = 16;
const AMOUNT = Number(process.env.BENCH_INTAKE_REQUESTS ?? 6000);
// The steady rate: Shopify redelivering after an outage (18,000 orders at 300/s), 10 s of it.
const RATE = Number(process.env.BENCH_INTAKE_RATE ?? 300);
const RATE_SECONDS = 10;
// Metrics on against off: rounds of one load on each, their order alternating (off first in even rounds).
const METRICS_ROUNDS = Number(process.env.BENCH_METRICS_ROUNDS ?? 6);
const METRICS_TOKEN = "bench-metrics-token-0123456789";
const SCRAPE_EVERY_MS = 5_000;

interface Load {
  perSecond: number;
  p99: number;
  failed: number;
}

async function load(port: number, amount: number): Promise<Load> {
  const { perSecond, result } = await measuredLoad({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    amount,
    timeout: 10,
    requests: [
      {
        setupRequest: (request) => ({ ...request, method: "POST", ...signedDelivery() }),
      },
    ],
  });
  return { perSecond, p99: result.latency.p99, failed: result.non2xx + result.errors + result.timeouts };
}

const PROFILE = Boolean(process.env.BENCH_CPU_PROF);

/**
 * One server under load: latency at the steady rate; deliveries/s and p99 of the saturating run, its CPU per 1,000
 * deliveries (user + system of the server process: steadier than the rate on a shared machine), RSS at rest
 * (started, migrated, warmed up) and at its peak. With BENCH_CPU_PROF, a CPU profile of the measured run only
 * (bench/profiles/intake-<label>.cpuprofile).
 */
async function serve(label: string, script: string, env: Record<string, string>, databaseUrl?: string) {
  const port = freePort();
  const flags = PROFILE ? ["--inspect=127.0.0.1:0"] : [];
  const child = await startNode(script, [], { ...env, PORT: String(port), HOST: "127.0.0.1" }, flags, { port });
  try {
    // Warm-up: migrations, JIT, the pool's connections and their prepared statements, as a server that has been up.
    await load(port, 300);
    await pacedLoad(port, RATE, 2, signedDelivery);
    const rest = child.rssMiB();
    const steady = await pacedLoad(port, RATE, RATE_SECONDS, signedDelivery);
    const profile = PROFILE
      ? await profileWindow(child, path.resolve(`bench/profiles/intake-${label}.cpuprofile`))
      : undefined;
    const cpu0 = child.cpuSeconds();
    const db0 = databaseUrl ? await backendCpu(databaseUrl) : 0;
    const measured = await load(port, AMOUNT);
    const cpuPer1000 = ((child.cpuSeconds() - cpu0) / AMOUNT) * 1000;
    const dbCpuPer1000 = databaseUrl ? (((await backendCpu(databaseUrl)) - db0) / AMOUNT) * 1000 : NaN;
    await profile?.stop();
    return { label, ...measured, steady, cpuPer1000, dbCpuPer1000, rest, rss: child.peakRssMiB() };
  } finally {
    await child.stop();
  }
}

/**
 * The app's intake with its metrics on (the default, scraped every SCRAPE_EVERY_MS during its loads, three times as
 * often as Prometheus's common 15 s, each scrape reading the queue from the database every 5 s) and off (METRICS_ENABLED=false: every instrument a no-op):
 * both servers up on the same database, loaded in turn (16 connections, AMOUNT deliveries each), the order
 * alternating each round, so the machine's neighbours weigh on both alike. Per round: deliveries/s and CPU per
 * 1,000 deliveries of each; the figure is the median of the rounds' on/off ratios.
 */
async function metricsOnOff(env: Record<string, string>) {
  const servers: { on: boolean; port: number; child: Child }[] = [];
  try {
    for (const on of [false, true]) {
      const port = freePort();
      const child = await startNode(
        "build/server-main.js",
        [],
        { ...env, PORT: String(port), HOST: "127.0.0.1", METRICS_ENABLED: String(on), METRICS_TOKEN },
        [],
        { port },
      );
      servers.push({ on, port, child });
      await load(port, 300);
    }
    let scrapes = 0;
    const rounds: { on: Run; off: Run }[] = [];
    for (let round = 0; round < METRICS_ROUNDS; round++) {
      const runs: Partial<Record<"on" | "off", Run>> = {};
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        // One scrape as the load starts, then one every SCRAPE_EVERY_MS.
        const scrape = () =>
          void fetch(`http://127.0.0.1:${server.port}/metrics`, {
            headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
          }).then(async (r) => {
            if (r.status === 200 && (await r.text()).includes("merchant_integration_webhook_deliveries_total"))
              scrapes += 1;
          });
        if (server.on) scrape();
        const scraping = server.on ? setInterval(scrape, SCRAPE_EVERY_MS) : undefined;
        const cpu0 = server.child.cpuSeconds();
        const measured = await load(server.port, AMOUNT);
        clearInterval(scraping);
        runs[server.on ? "on" : "off"] = {
          perSecond: measured.perSecond,
          cpuPer1000: ((server.child.cpuSeconds() - cpu0) / AMOUNT) * 1000,
          failed: measured.failed,
        };
      }
      rounds.push(runs as { on: Run; off: Run });
    }
    const rate = (r: { on: Run; off: Run }) => r.on.perSecond / r.off.perSecond;
    const cpu = (r: { on: Run; off: Run }) => r.on.cpuPer1000 / r.off.cpuPer1000;
    const show = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(", ");
    return {
      rateRatio: median(rounds.map(rate)),
      cpuRatio: median(rounds.map(cpu)),
      on: {
        perSecond: median(rounds.map((r) => r.on.perSecond)),
        cpuPer1000: median(rounds.map((r) => r.on.cpuPer1000)),
      },
      off: {
        perSecond: median(rounds.map((r) => r.off.perSecond)),
        cpuPer1000: median(rounds.map((r) => r.off.cpuPer1000)),
      },
      failed: rounds.reduce((n, r) => n + r.on.failed + r.off.failed, 0),
      note: `${METRICS_ROUNDS} rounds, on/off ratio per round: deliveries/s ${show(rounds.map(rate))}, CPU per 1,000 ${show(rounds.map(cpu))}; ${scrapes} scrapes`,
    };
  } finally {
    for (const server of servers) await server.child.stop();
  }
}

interface Run {
  perSecond: number;
  cpuPer1000: number;
  failed: number;
}

export const intake: Bench = {
  name: "intake",
  async run(ctx) {
    const rows: Row[] = [];
    const db = await throwawayDatabase(ctx.adminUrl, "intake");
    try {
      const env = appEnv({ DATABASE_URL: db.url });
      ctx.log(`intake: floor, ${AMOUNT} deliveries`);
      const floor = await serve("floor", "scripts/bench/floor-server.ts", env, db.url);
      ctx.log(`intake: app on PostgreSQL (${floor.perSecond.toFixed(0)}/s floor)`);
      const app = await serve("app-pg", "build/server-main.js", env, db.url);
      rows.push(
        ratioRow({
          figure: "intake PG, 16 conn (deliveries/s)",
          value: app.perSecond,
          unit: "/s",
          baselineLabel: "floor (bare http+HMAC+insert)",
          baseline: floor.perSecond,
          target: ">= 0.67x floor",
          met: app.perSecond >= floor.perSecond / 1.5 && app.failed === 0,
          note: `${app.failed} failed; floor p99 ${floor.p99} ms`,
        }),
        ratioRow({
          figure: "intake PG, CPU per 1,000 deliveries (s)",
          value: app.cpuPer1000,
          unit: "s",
          baselineLabel: "floor",
          baseline: floor.cpuPer1000,
          target: "<= 1.5x floor",
          met: app.cpuPer1000 <= 1.5 * floor.cpuPer1000,
          note: `PostgreSQL's backends for this database: ${app.dbCpuPer1000.toFixed(2)} s per 1,000 for the app, ${floor.dbCpuPer1000.toFixed(2)} s for the floor`,
        }),
        ratioRow({
          figure: `intake PG p99 at ${RATE}/s, open loop (ms)`,
          value: app.steady.p99,
          unit: "ms",
          baselineLabel: "floor p99",
          baseline: floor.steady.p99,
          target: "< 20 ms",
          met: app.steady.p99 < 20 && app.steady.failed === 0,
          note: `p50 ${app.steady.p50.toFixed(1)} ms (floor ${floor.steady.p50.toFixed(1)}), max ${app.steady.max.toFixed(0)} ms (floor ${floor.steady.max.toFixed(0)}), ${app.steady.failed} failed`,
        }),
        ratioRow({
          figure: "intake PG p99, 16 conn saturating (ms)",
          value: app.p99,
          unit: "ms",
          baselineLabel: "floor p99",
          baseline: floor.p99,
          target: "report",
          met: true,
          note: `16 connections kept busy: the mean is 16 / the rate (Little's law), ${((16 / app.perSecond) * 1000).toFixed(1)} ms for the app, ${((16 / floor.perSecond) * 1000).toFixed(1)} ms for the floor`,
        }),
        ratioRow({
          figure: "RSS of the app at rest, PG (MiB)",
          value: app.rest,
          unit: "MiB",
          baselineLabel: "floor at rest",
          baseline: floor.rest,
          target: "report",
          met: true,
        }),
        ratioRow({
          figure: "peak RSS of the app, intake PG (MiB)",
          value: app.rss,
          unit: "MiB",
          baselineLabel: "floor RSS",
          baseline: floor.rss,
          target: "report",
          met: true,
        }),
      );
      ctx.log(`intake: app on PostgreSQL, metrics on against off (${METRICS_ROUNDS} rounds)`);
      const metrics = await metricsOnOff(env);
      rows.push(
        {
          figure: "intake PG, metrics on vs off, 16 conn (deliveries/s)",
          value: metrics.on.perSecond,
          unit: "/s",
          baselineLabel: "metrics off (same run, median)",
          baseline: metrics.off.perSecond,
          ratio: metrics.rateRatio,
          target: ">= 0.95x off",
          met: metrics.rateRatio >= 0.95 && metrics.failed === 0,
          note: `the ratio is the median of the rounds' ratios; ${metrics.note}; ${metrics.failed} failed`,
        },
        {
          figure: "intake PG, app CPU per 1,000 deliveries, metrics on vs off (s)",
          value: metrics.on.cpuPer1000,
          unit: "s",
          baselineLabel: "metrics off (median)",
          baseline: metrics.off.cpuPer1000,
          ratio: metrics.cpuRatio,
          target: "report",
          met: true,
        },
      );
    } finally {
      await db.drop();
    }
    const dataDir = mkdtempSync(path.join(tmpdir(), "bench-pglite-"));
    try {
      // A deployment's first start creates the data directory (initdb, whose peak stays out of the figures); the
      // measured start is a restart on it, as every later one is.
      ctx.log("intake: app on PGlite (first start: initdb, migrations)");
      const port = freePort();
      await (
        await startNode(
          "build/server-main.js",
          [],
          { ...appEnv({ PGLITE_DATA_DIR: dataDir, DATABASE_URL: "" }), PORT: String(port), HOST: "127.0.0.1" },
          [],
          { port },
        )
      ).stop();
      ctx.log("intake: app on PGlite");
      const lite = await serve(
        "app-pglite",
        "build/server-main.js",
        appEnv({ PGLITE_DATA_DIR: dataDir, DATABASE_URL: "" }),
      );
      rows.push(
        ratioRow({
          figure: "intake PGlite, 16 conn (deliveries/s)",
          value: lite.perSecond,
          unit: "/s",
          baselineLabel: "target 500/s",
          baseline: 500,
          target: ">= 500/s",
          met: lite.perSecond >= 500 && lite.failed === 0,
          note: `p99 ${lite.p99} ms, ${lite.failed} failed; CPU per 1,000 deliveries ${lite.cpuPer1000.toFixed(2)} s`,
        }),
        ratioRow({
          figure: `intake PGlite p99 at ${RATE}/s, open loop (ms)`,
          value: lite.steady.p99,
          unit: "ms",
          baselineLabel: "target",
          baseline: 20,
          target: "report",
          met: true,
          note: `p50 ${lite.steady.p50.toFixed(1)} ms, max ${lite.steady.max.toFixed(0)} ms, ${lite.steady.failed} failed`,
        }),
        ratioRow({
          figure: "RSS of the app at rest, PGlite (MiB)",
          value: lite.rest,
          unit: "MiB",
          baselineLabel: "target",
          baseline: 300,
          target: "< 300 MiB",
          met: lite.rest < 300,
        }),
        ratioRow({
          figure: "peak RSS of the app, intake PGlite (MiB)",
          value: lite.rss,
          unit: "MiB",
          baselineLabel: "target",
          baseline: 300,
          target: "< 300 MiB",
          met: lite.rss < 300,
        }),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    return rows;
  },
};
