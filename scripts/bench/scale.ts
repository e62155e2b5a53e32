// Scale-out against the service's rate (issue 39): worker processes as an operator starts them (`npm run worker`,
// the defaults: no WORKER_CONCURRENCY set), a backlog queued at once, the emulator's answers counted.
//  - 1, 2, 4 and 8 worker processes against a service allowing 15 requests a second (bucket 15): every process
//    must draw from the one rate, so the drain takes N/rate and almost nothing is answered 429;
//  - one worker against a service allowing 100 a second that answers in 0.1, 0.5 and 2 s: the pace is the rate,
//    not the latency, so the drain takes N/rate + latency.
// A row for the floor: the same backlog with no limit and no latency (the app's own work on this machine now).
// BENCH_SCALE_ORDERS (default 450) and BENCH_PACE_ORDERS (default 600) set the backlogs; BENCH_SCALE_WORKERS
// (default 1,2,4,8) and BENCH_PACE_LATENCIES (default 0.1,0.5,2) the rows. The figures before the change
// (today's tree, 300 orders each) are in docs/performance.md.
import { openDatabase } from "../../app/db/connect.server";
import { DEFAULT_CONFIG } from "../../emulator/config";
import { emulatorInternals, startEmulator } from "../../emulator/server";
import { queueOrders, waitDone } from "./intake-backlog";
import { connectShops } from "./connected-shops";
import { appEnv, ratioRow, startNode, throwawayDatabase, type Bench, type Child, type Row } from "./common";

const SHOP = "scale-shop.myshopify.com";
const CUSTOMER = "7000000001";

interface Drained {
  seconds: number;
  /** From the drain's start to the first request the service received, and from its last answer to the end. */
  firstSeconds: number;
  tailSeconds: number;
  /** Where the time went, from the drain's start: each request's arrival at the service (its answer's time less
   * the answer delay for an accepted one; a 429 answers at once), the first answer, and when a tenth, half and all of
   * the accepted requests had arrived. */
  profile: string;
  /** Accepted imports per second once the bucket's first burst was used. */
  sustained: number;
  calls: number;
  refused: number;
  imported: number;
  duplicates: number;
  rss: number;
}

/** `orders` queued at once, drained by `workers` worker processes against the emulator at `perSecond`. */
async function drain(
  adminUrl: string,
  options: { perSecond: number; orders: number; workers: number; latencyMs?: number },
): Promise<Drained> {
  const db = await throwawayDatabase(adminUrl, "scale");
  const rate = { capacity: options.perSecond, leak_per_second: options.perSecond };
  const emulator = await startEmulator({ port: 0, config: { ...DEFAULT_CONFIG, rate_limit: rate } });
  // The service's answer time: a delay on every order import, after its key is reserved (inside the request).
  if (options.latencyMs)
    emulatorInternals(emulator).faults.add({ path: "/api/v1/orders", delay_ms: options.latencyMs, times: 1e9 });
  const app = openDatabase({ url: db.url, poolSize: 4 });
  const children: Child[] = [];
  try {
    await app.ready;
    const env = appEnv({ DATABASE_URL: db.url, ALLOW_LOOPBACK_SERVICE_URLS: "true", WORKER_POOL_SIZE: "5" });
    await connectShops(app.prisma, emulator, [SHOP], CUSTOMER, env.ENCRYPTION_KEYS);
    for (let i = 0; i < options.workers; i++) children.push(await startNode("scripts/bench/worker-child.ts", [], env));
    const started = Date.now();
    const jobs = await queueOrders(app.prisma, SHOP, options.orders);
    const queued = Date.now();
    const ended = await waitDone(app.prisma, jobs, 300_000);
    if (process.env.BENCH_TRACE) for (const child of children) process.stderr.write(child.output());
    const calls = emulatorInternals(emulator).store.requests.filter((r) => r.path === "/api/v1/orders");
    const accepted = calls.filter((r) => r.status === 201).map((r) => Date.parse(r.at));
    const after = accepted.slice(Math.min(options.perSecond, accepted.length - 2));
    const sentAt = calls
      .map((r) => Date.parse(r.at) - (r.status === 201 ? (options.latencyMs ?? 0) : 0) - started)
      .sort((a, b) => a - b);
    const acceptedSent = calls
      .filter((r) => r.status === 201)
      .map((r) => Date.parse(r.at) - (options.latencyMs ?? 0) - started)
      .sort((a, b) => a - b);
    const at = (ms: number | undefined) => (ms === undefined ? "-" : `${(ms / 1000).toFixed(1)} s`);
    const share = (f: number) => acceptedSent[Math.max(0, Math.ceil(acceptedSent.length * f) - 1)];
    const firstWave = sentAt.filter((t) => t < sentAt[0] + 250).length;
    const profile = `queued ${at(queued - started)}, first request sent ${at(sentAt[0])} (${firstWave} within 0.25 s of it), first answer ${at(calls.length ? Date.parse(calls[0].at) - started : undefined)}, 10 % sent ${at(share(0.1))}, 50 % ${at(share(0.5))}, all ${at(acceptedSent[acceptedSent.length - 1])}, end ${at(ended - started)}`;
    const created = new Map<string, number>();
    for (const r of calls)
      if (r.status === 201 && !r.replayed && r.external_id)
        created.set(r.external_id, (created.get(r.external_id) ?? 0) + 1);
    return {
      seconds: (ended - started) / 1000,
      firstSeconds: calls.length ? (Date.parse(calls[0].at) - started) / 1000 : NaN,
      tailSeconds: calls.length ? (ended - Date.parse(calls[calls.length - 1].at)) / 1000 : NaN,
      profile,
      sustained: (after.length - 1) / Math.max(0.001, (after[after.length - 1] - after[0]) / 1000),
      calls: calls.length,
      refused: calls.filter((r) => r.status === 429).length,
      imported: created.size,
      duplicates: [...created.values()].filter((n) => n > 1).length,
      rss: Math.max(...children.map((c) => c.peakRssMiB())),
    };
  } finally {
    for (const child of children) await child.stop();
    await app.close();
    await emulator.close();
    await db.drop();
  }
}

const list = (value: string | undefined, fallback: number[]) =>
  value ? value.split(",").map(Number).filter(Number.isFinite) : fallback;

export const scaleBench: Bench = {
  name: "scale",
  async run(ctx) {
    const rows: Row[] = [];
    const RATE = 15;
    const N = Number(process.env.BENCH_SCALE_ORDERS ?? 450);
    for (const workers of list(process.env.BENCH_SCALE_WORKERS, [1, 2, 4, 8])) {
      ctx.log(`scale: ${N} orders, ${workers} worker process(es), service at ${RATE}/s`);
      const run = await drain(ctx.adminUrl, { perSecond: RATE, orders: N, workers });
      const ideal = N / RATE;
      const share429 = run.refused / Math.max(1, run.calls);
      ctx.log(
        `  ${run.seconds.toFixed(1)} s (${(run.seconds / ideal).toFixed(2)}x N/rate), ${run.refused}/${run.calls} 429, ${run.sustained.toFixed(1)}/s after the burst, first request after ${run.firstSeconds.toFixed(1)} s, last answer ${run.tailSeconds.toFixed(1)} s before the end; ${run.profile}`,
      );
      rows.push(
        ratioRow({
          figure: `drain ${N} at ${RATE}/s, ${workers} worker process${workers > 1 ? "es" : ""} (s)`,
          value: run.seconds,
          unit: "s",
          baselineLabel: "N/rate",
          baseline: ideal,
          target: "<= 1.1x, <= 2% 429",
          met: run.seconds <= 1.1 * ideal && share429 <= 0.02 && run.imported === N && run.duplicates === 0,
          note: `${run.refused} of ${run.calls} answered 429 (${(share429 * 100).toFixed(1)} %), ${run.sustained.toFixed(1)}/s after the burst, first request after ${run.firstSeconds.toFixed(1)} s, ${run.imported}/${N} imported, ${run.duplicates} duplicates, worker RSS ${run.rss.toFixed(0)} MiB`,
        }),
      );
    }
    const FAST = 100;
    const M = Number(process.env.BENCH_PACE_ORDERS ?? 600);
    // The floor on this machine now: the same backlog with no limit and no latency (the app's own work).
    ctx.log(`pace: ${M} orders, one worker, no limit and no latency (the floor)`);
    const floor = await drain(ctx.adminUrl, { perSecond: 1e6, orders: M, workers: 1 });
    rows.push(
      ratioRow({
        figure: `drain ${M}, 1 worker, no limit, no latency (s)`,
        value: floor.seconds,
        unit: "s",
        baselineLabel: "N/100 per s",
        baseline: M / FAST,
        target: "report (the floor)",
        met: floor.imported === M,
        note: `the app's own work: ${(M / floor.seconds).toFixed(0)} imports/s on this machine now`,
      }),
    );
    for (const latency of list(process.env.BENCH_PACE_LATENCIES, [0.1, 0.5, 2])) {
      ctx.log(`pace: ${M} orders, one worker, service at ${FAST}/s answering in ${latency} s`);
      const run = await drain(ctx.adminUrl, { perSecond: FAST, orders: M, workers: 1, latencyMs: latency * 1000 });
      const ideal = M / FAST + latency;
      const share429 = run.refused / Math.max(1, run.calls);
      ctx.log(
        `  ${run.seconds.toFixed(1)} s (${(run.seconds / ideal).toFixed(2)}x N/rate + latency), ${run.refused}/${run.calls} 429; ${run.profile}`,
      );
      rows.push(
        ratioRow({
          figure: `drain ${M} at ${FAST}/s, answers in ${latency} s, 1 worker (s)`,
          value: run.seconds,
          unit: "s",
          baselineLabel: "N/rate + latency",
          baseline: ideal,
          target: "<= 1.3x",
          met: run.seconds <= 1.3 * ideal && run.imported === M && run.duplicates === 0,
          note: `${run.refused} of ${run.calls} answered 429 (${(share429 * 100).toFixed(1)} %), ${run.imported}/${M} imported, worker RSS ${run.rss.toFixed(0)} MiB; the floor (no limit, no latency) ${floor.seconds.toFixed(1)} s`,
        }),
      );
    }
    return rows;
  },
};
