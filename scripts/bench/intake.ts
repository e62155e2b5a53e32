// Webhook intake over HTTP: the production server (npm run build; build/server-main.js, worker not in process) against
// the floor (floor-server.ts) on the same PostgreSQL, then on PGlite. Load: autocannon from this process, 16
// connections, a bounded number of signed orders/create deliveries.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { appEnv, freePort, measuredLoad, orderBody, ratioRow, signedHeaders, startNode, throwawayDatabase, type Bench, type Row } from "./common";

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

async function serve(label: string, script: string, env: Record<string, string>, flags: string[]) {
  const port = freePort();
  const child = await startNode(script, [], { ...env, PORT: String(port), HOST: "127.0.0.1" }, flags, { port });
  await load(port, 300); // warm-up: migrations, JIT, pool
  const measured = await load(port, AMOUNT);
  const rss = child.peakRssMiB();
  await child.stop();
  return { label, ...measured, rss };
}

export const intake: Bench = {
  name: "intake",
  async run(ctx) {
    const rows: Row[] = [];
    const db = await throwawayDatabase(ctx.adminUrl, "intake");
    try {
      const env = appEnv({ DATABASE_URL: db.url });
      ctx.log(`intake: floor, ${AMOUNT} deliveries`);
      const floor = await serve("floor", "scripts/bench/floor-server.ts", env, []);
      ctx.log(`intake: app on PostgreSQL (${floor.perSecond.toFixed(0)}/s floor)`);
      const app = await serve("app", "build/server-main.js", env, ctx.nodeFlags);
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
          figure: "intake PG p99 latency (ms)",
          value: app.p99,
          unit: "ms",
          baselineLabel: "floor p99",
          baseline: floor.p99,
          target: "< 20 ms",
          met: app.p99 < 20,
        }),
        ratioRow({ figure: "peak RSS of the app, intake PG (MiB)", value: app.rss, unit: "MiB", baselineLabel: "floor RSS", baseline: floor.rss, target: "report", met: true }),
      );
    } finally {
      await db.drop();
    }
    const dataDir = mkdtempSync(path.join(tmpdir(), "bench-pglite-"));
    try {
      ctx.log("intake: app on PGlite");
      const lite = await serve("pglite", "build/server-main.js", appEnv({ PGLITE_DATA_DIR: dataDir, DATABASE_URL: "" }), ctx.nodeFlags);
      rows.push(
        ratioRow({
          figure: "intake PGlite, 16 conn (deliveries/s)",
          value: lite.perSecond,
          unit: "/s",
          baselineLabel: "target 500/s",
          baseline: 500,
          target: ">= 500/s",
          met: lite.perSecond >= 500 && lite.failed === 0,
          note: `p99 ${lite.p99} ms, ${lite.failed} failed, RSS ${lite.rss.toFixed(0)} MiB`,
        }),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    return rows;
  },
};
