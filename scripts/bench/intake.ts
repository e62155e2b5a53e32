// Webhook intake over HTTP: the production server (npm run build; build/server-main.js, worker not in process) against
// the floor (floor-server.ts) on the same PostgreSQL, then on PGlite. Load: autocannon from this process, 16
// connections, a bounded number of signed orders/create deliveries.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { appEnv, freePort, measuredLoad, orderBody, profileWindow, ratioRow, signedHeaders, startNode, throwawayDatabase, type Bench, type Row } from "./common";

const CONNECTIONS = 16;
const AMOUNT = Number(process.env.BENCH_INTAKE_REQUESTS ?? 6000);

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
        setupRequest: (request) => {
          const body = orderBody();
          return { ...request, method: "POST", path: "/webhooks/orders/create", headers: signedHeaders(body), body };
        },
      },
    ],
  });
  return { perSecond, p99: result.latency.p99, failed: result.non2xx + result.errors + result.timeouts };
}

const PROFILE = Boolean(process.env.BENCH_CPU_PROF);

/**
 * One server under load: deliveries/s and p99 of the measured run, its CPU per 1,000 deliveries (user + system of
 * the server process: steadier than the rate on a shared machine), RSS at rest (started, migrated, warmed up) and
 * at its peak. With BENCH_CPU_PROF, a CPU profile of the measured run only (bench/profiles/intake-<label>.cpuprofile).
 */
async function serve(label: string, script: string, env: Record<string, string>) {
  const port = freePort();
  const flags = PROFILE ? ["--inspect=127.0.0.1:0"] : [];
  const child = await startNode(script, [], { ...env, PORT: String(port), HOST: "127.0.0.1" }, flags, { port });
  try {
    await load(port, 300); // warm-up: migrations, JIT, pool
    const rest = child.rssMiB();
    const profile = PROFILE ? await profileWindow(child, path.resolve(`bench/profiles/intake-${label}.cpuprofile`)) : undefined;
    const cpu0 = child.cpuSeconds();
    const measured = await load(port, AMOUNT);
    const cpuPer1000 = ((child.cpuSeconds() - cpu0) / AMOUNT) * 1000;
    await profile?.stop();
    return { label, ...measured, cpuPer1000, rest, rss: child.peakRssMiB() };
  } finally {
    await child.stop();
  }
}

export const intake: Bench = {
  name: "intake",
  async run(ctx) {
    const rows: Row[] = [];
    const db = await throwawayDatabase(ctx.adminUrl, "intake");
    try {
      const env = appEnv({ DATABASE_URL: db.url });
      ctx.log(`intake: floor, ${AMOUNT} deliveries`);
      const floor = await serve("floor", "scripts/bench/floor-server.ts", env);
      ctx.log(`intake: app on PostgreSQL (${floor.perSecond.toFixed(0)}/s floor)`);
      const app = await serve("app-pg", "build/server-main.js", env);
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
        }),
        ratioRow({
          figure: "intake PG p99 latency (ms)",
          value: app.p99,
          unit: "ms",
          baselineLabel: "floor p99",
          baseline: floor.p99,
          target: "< 20 ms",
          met: app.p99 < 20,
        }),
        ratioRow({ figure: "RSS of the app at rest, PG (MiB)", value: app.rest, unit: "MiB", baselineLabel: "floor at rest", baseline: floor.rest, target: "report", met: true }),
        ratioRow({ figure: "peak RSS of the app, intake PG (MiB)", value: app.rss, unit: "MiB", baselineLabel: "floor RSS", baseline: floor.rss, target: "report", met: true }),
      );
    } finally {
      await db.drop();
    }
    const dataDir = mkdtempSync(path.join(tmpdir(), "bench-pglite-"));
    try {
      ctx.log("intake: app on PGlite");
      const lite = await serve("app-pglite", "build/server-main.js", appEnv({ PGLITE_DATA_DIR: dataDir, DATABASE_URL: "" }));
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
        ratioRow({ figure: "RSS of the app at rest, PGlite (MiB)", value: lite.rest, unit: "MiB", baselineLabel: "target", baseline: 300, target: "< 300 MiB", met: lite.rest < 300 }),
        ratioRow({ figure: "peak RSS of the app, intake PGlite (MiB)", value: lite.rss, unit: "MiB", baselineLabel: "target", baseline: 300, target: "< 300 MiB", met: lite.rss < 300 }),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    return rows;
  },
};
