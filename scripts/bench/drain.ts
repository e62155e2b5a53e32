// Draining the queue into the emulator with the real worker processes (worker-child.ts):
//  - at a high configured rate (the app, not the limit, could be the bottleneck), with a second shop's new order
//    arriving mid-drain;
//  - at the contract's 2/s (a shorter run: the first 40 go at once, the rest at 2/s);
//  - with the rate limit off, 1 and 2 worker processes: imports per second, against the emulator's own speed.
// The emulator runs in this process; orders are queued directly through the intake's group commit.
import { randomUUID } from "node:crypto";
import { openDatabase } from "../../app/db/connect.server";
import { DEFAULT_CONFIG } from "../../emulator/config";
import { emulatorInternals, startEmulator } from "../../emulator/server";
import { queueOrders, waitDone } from "./intake-backlog";
import { connectShops } from "./connected-shops";
import { appEnv, ratioRow, startNode, throwawayDatabase, type Bench, type Child, type Row } from "./common";
import { measuredLoad } from "./load";

// A worker process tuned for throughput, as a deployment that scales workers would set it (.env.example): jobs
// mostly wait on the service and the database, so many run at once on one process.
const WORKER_SETTINGS = {
  WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY ?? "32",
  WORKER_POOL_SIZE: process.env.WORKER_POOL_SIZE ?? "16",
};
const BIG = "backfill-shop.myshopify.com";
const SMALL = "other-shop.myshopify.com";
const CUSTOMER = "7000000001";

interface Run {
  seconds: number;
  /** Imports per second once the bucket's initial burst was used: the rate the limit allows from then on. */
  sustained: number;
  imports: number;
  rate429: number;
  duplicates: number;
  otherShopSeconds?: number;
  rss: number;
}

async function drain(
  adminUrl: string,
  rate: { capacity: number; leak_per_second: number },
  orders: number,
  workers: number,
  otherShop: boolean,
  flags: string[] = [],
): Promise<Run> {
  const db = await throwawayDatabase(adminUrl, "drain");
  const emulator = await startEmulator({ port: 0, config: { ...DEFAULT_CONFIG, rate_limit: rate } });
  const app = openDatabase({ url: db.url, poolSize: 4 });
  const children: Child[] = [];
  try {
    await app.ready;
    const env = appEnv({ DATABASE_URL: db.url, ALLOW_LOOPBACK_SERVICE_URLS: "true", ...WORKER_SETTINGS });
    // The worker processes run the app's own collaborators: settings and grants stored sealed with their key.
    await connectShops(app.prisma, emulator, [BIG, SMALL], CUSTOMER, env.ENCRYPTION_KEYS);
    // Workers first (their start-up is not drain time), then the backlog lands at once.
    for (let i = 0; i < workers; i++) children.push(await startNode("scripts/bench/worker-child.ts", [], env, flags));
    const started = Date.now();
    const jobs = await queueOrders(app.prisma, BIG, orders);
    let other: Promise<number> | undefined;
    if (otherShop) {
      await new Promise((r) => setTimeout(r, 3_000));
      const at = Date.now();
      const [job] = await queueOrders(app.prisma, SMALL, 1);
      other = waitDone(app.prisma, [job], 60_000).then((t) => (t - at) / 1000);
    }
    const ended = await waitDone(app.prisma, jobs, 240_000);
    const state = (await (await fetch(`${emulator.url}/_emulator/state`)).json()) as {
      requests: { at: string; path: string; status: number; replayed?: boolean; external_id?: string }[];
    };
    const calls = state.requests.filter((r) => r.path === "/api/v1/orders");
    const created = new Map<string, number>();
    for (const r of calls)
      if (r.status === 201 && !r.replayed && r.external_id)
        created.set(r.external_id, (created.get(r.external_id) ?? 0) + 1);
    const times = calls.filter((r) => r.status === 201).map((r) => Date.parse(r.at));
    const after = times.slice(Math.min(rate.capacity, times.length - 2));
    const sustained = (after.length - 1) / Math.max(0.001, (after[after.length - 1] - after[0]) / 1000);
    return {
      seconds: (ended - started) / 1000,
      sustained,
      imports: created.size,
      rate429: calls.filter((r) => r.status === 429).length / Math.max(1, calls.length),
      duplicates: [...created.values()].filter((n) => n > 1).length,
      otherShopSeconds: other ? await other : undefined,
      rss: Math.max(...children.map((c) => c.peakRssMiB())),
    };
  } finally {
    for (const child of children) await child.stop();
    await app.close();
    await emulator.close();
    await db.drop();
  }
}

/** The emulator's own import speed: autocannon straight at it, 16 connections, one token. */
async function emulatorSpeed(): Promise<number> {
  const emulator = await startEmulator({
    port: 0,
    config: { ...DEFAULT_CONFIG, rate_limit: { capacity: 1e6, leak_per_second: 1e6 } },
  });
  try {
    const tokens = emulatorInternals(emulator).oauth.issueTokens(
      { id: randomUUID(), clientId: "sandbox-client", workspaceId: "ws-acme", revoked: false },
      ["orders:write"],
      Date.now(),
    );
    let n = 0;
    const body = (id: number) =>
      JSON.stringify({
        external_order_id: `e-${id}`,
        currency: "USD",
        ordered_at: "2026-11-20T15:15:00Z",
        lines: [{ external_line_id: "l1", title: "Mug", quantity: 1 }],
      });
    const { perSecond, result } = await measuredLoad({
      url: emulator.url,
      connections: 16,
      amount: 3000,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            method: "POST",
            path: "/api/v1/orders",
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${tokens.access_token}`,
              "idempotency-key": `k-${++n}`,
            },
            body: body(n),
          }),
        },
      ],
    });
    // a refused body is answered faster than an import: the figure would not be the emulator's import speed
    if (result.non2xx) throw new Error(`emulator speed: ${result.non2xx} of ${result.requests.total} orders refused`);
    return perSecond;
  } finally {
    await emulator.close();
  }
}

export const drainBench: Bench = {
  name: "drain",
  async run(ctx) {
    const rows: Row[] = [];
    const HIGH = { capacity: 50, leak_per_second: 50 };
    const N = Number(process.env.BENCH_DRAIN_ORDERS ?? 2000);
    ctx.log(`drain: ${N} orders at ${HIGH.leak_per_second}/s, another shop's order after 3 s`);
    const high = await drain(ctx.adminUrl, HIGH, N, 1, true);
    const ideal = (n: number, r: typeof HIGH) => Math.max(0, n - r.capacity) / r.leak_per_second;
    rows.push(
      ratioRow({
        figure: `drain ${N} at ${HIGH.leak_per_second}/s (orders/s after burst)`,
        value: high.sustained,
        unit: "/s",
        baselineLabel: "configured rate",
        baseline: HIGH.leak_per_second,
        target: ">= 0.9x, <1% 429, 0 dup",
        met:
          high.sustained >= 0.9 * HIGH.leak_per_second &&
          high.rate429 < 0.01 &&
          high.duplicates === 0 &&
          high.imports >= N,
        note: `${N} in ${high.seconds.toFixed(1)} s; ${(high.rate429 * 100).toFixed(2)}% 429, ${high.duplicates} duplicates, ${high.imports}/${N} imported, worker RSS ${high.rss.toFixed(0)} MiB`,
      }),
      ratioRow({
        figure: "other shop's new order during drain (s)",
        value: high.otherShopSeconds ?? NaN,
        unit: "s",
        baselineLabel: "target",
        baseline: 5,
        target: "< 5 s",
        met: (high.otherShopSeconds ?? Infinity) < 5,
      }),
      ratioRow({
        figure: "peak RSS of the worker, drain (MiB)",
        value: high.rss,
        unit: "MiB",
        baselineLabel: "-",
        baseline: NaN,
        target: "report",
        met: true,
      }),
    );
    const CONTRACT = { capacity: 40, leak_per_second: 2 };
    const M = Number(process.env.BENCH_SLOW_ORDERS ?? 60);
    ctx.log(`drain: ${M} orders at the contract's 2/s`);
    const slow = await drain(ctx.adminUrl, CONTRACT, M, 1, false);
    rows.push(
      ratioRow({
        figure: `drain ${M} at 2/s, bucket 40 (orders/s after burst)`,
        value: slow.sustained,
        unit: "/s",
        baselineLabel: "configured rate",
        baseline: CONTRACT.leak_per_second,
        target: ">= 0.9x, <1% 429, 0 dup",
        met:
          slow.sustained >= 0.9 * CONTRACT.leak_per_second &&
          slow.rate429 < 0.01 &&
          slow.duplicates === 0 &&
          slow.imports === M,
        note: `${M} in ${slow.seconds.toFixed(1)} s (ideal ${ideal(M, CONTRACT).toFixed(1)} s); ${(slow.rate429 * 100).toFixed(2)}% 429, ${slow.duplicates} duplicates, ${slow.imports}/${M} imported`,
      }),
    );
    ctx.log("worker throughput: emulator's own speed");
    const speed = await emulatorSpeed();
    const OFF = { capacity: 1e6, leak_per_second: 1e6 };
    const W = Number(process.env.BENCH_THROUGHPUT_ORDERS ?? 1500);
    for (const workers of [1, 2]) {
      ctx.log(`worker throughput: ${W} orders, ${workers} worker process(es), no rate limit`);
      const run = await drain(ctx.adminUrl, OFF, W, workers, false, ctx.nodeFlags);
      rows.push(
        ratioRow({
          figure: `imports/s, ${workers} worker process${workers > 1 ? "es" : ""} (PG)`,
          value: W / run.seconds,
          unit: "/s",
          baselineLabel: "emulator alone",
          baseline: speed,
          target: ">= 300/s",
          met: W / run.seconds >= 300 && run.duplicates === 0,
          note: `${run.duplicates} duplicates, ${run.imports}/${W} imported, RSS ${run.rss.toFixed(0)} MiB per worker, WORKER_CONCURRENCY=${WORKER_SETTINGS.WORKER_CONCURRENCY} WORKER_POOL_SIZE=${WORKER_SETTINGS.WORKER_POOL_SIZE}`,
        }),
      );
    }
    return rows;
  },
};
