// Health and metrics of one process (the web process or a `npm run worker`), for the engineer who runs it
// (docs/operations.md):
// - liveness (/healthz): the process answers; 503 only when its migrations failed, which no wait mends (restart it);
// - readiness (/readyz): migrations applied, the database answers within a bound (asked at most once a second,
//   whatever the request rate), the sync worker's heartbeat fresh where this process runs one, and not draining
//   (after SIGTERM or a crash): 200, otherwise 503;
// - metrics (/metrics): the registry of app/lib/metrics.server.ts, with the values that live in the database read
//   at scrape time by one bounded statement and kept STATS_TTL_MS, so N processes do not multiply the load.
// The web process answers these on its own port (routes healthz, readyz, metrics) and on OPS_PORT when set; a worker
// on OPS_PORT (server/operations-listener.ts).
import { timingSafeEqual } from "node:crypto";
import type { Database } from "../db/connect.server";
import { checkDatabase, storageProblem, type Health } from "../db/health.server";
import { env } from "../env.server";
import { sha256 } from "../lib/hash";
import {
  backfillsRunning,
  dbPoolConnections,
  dbPoolMax,
  dbPoolWaiting,
  heartbeatAgeSeconds,
  metricsEnabled,
  queueJobs,
  queueOldestDueSeconds,
  ready as readyGauge,
  renderMetrics,
  startProcessMetrics,
  workersAlive,
  type ScrapeHook,
} from "../lib/metrics.server";
import { HEARTBEAT_STALE_MS } from "../sync/heartbeat.server";
import { readQueueStats, type QueueStats } from "../sync/queue-stats.server";
import type { RunningWorker } from "../sync/job-runner.server";

/** An HTTP answer in plain terms, for a Remix route and for Node's own server alike. */
export interface OpsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Where a metrics request came in: the app's public port (the token is required) or the private OPS_PORT. */
export type Listener = "public" | "private";

export interface Operations {
  liveness(): OpsAnswer;
  readiness(): Promise<OpsAnswer>;
  /** /metrics for a request with this Authorization header. */
  metrics(authorization: string | null | undefined, listener: Listener): Promise<OpsAnswer>;
  /** From now on not ready: the process is draining (SIGTERM, or an uncaught exception) and will exit. */
  markDraining(): void;
  /**
   * One more condition of readiness from the process around the app (server/main.ts: its intake saturated for
   * long), read at each check: what is wrong, or null. Shown under `name` in the checks.
   */
  watch(name: string, problem: () => string | null): void;
}

export interface OperationsOptions {
  database: Database;
  /** The sync worker this process runs, if it runs one. */
  worker?: Pick<RunningWorker, "lastBeat">;
  /** How long a query may take before the database counts as unreachable. */
  databaseTimeoutMs?: number;
  /** How long the queue's stats read at one scrape serve the next ones. */
  statsTtlMs?: number;
}

const STATS_TTL_MS = 5_000;
const DATABASE_CHECK_TTL_MS = 1_000;

const json = (status: number, body: unknown): OpsAnswer => ({
  status,
  headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  body: JSON.stringify(body),
});
const text = (status: number, body: string, headers: Record<string, string> = {}): OpsAnswer => ({
  status,
  headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  body,
});

/**
 * Whether the Authorization header carries one of the configured tokens (METRICS_TOKEN: one, or "new,old" while
 * rotating), compared in constant time (digests of equal length).
 */
function tokenMatches(authorization: string | null | undefined, tokens: string): boolean {
  const given = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1];
  if (!given) return false;
  const givenDigest = Buffer.from(sha256(given));
  return tokens
    .split(",")
    .reduce((found, token) => timingSafeEqual(givenDigest, Buffer.from(sha256(token))) || found, false);
}

export function createOperations(options: OperationsOptions): Operations {
  const { database: db, worker } = options;
  const timeoutMs = options.databaseTimeoutMs ?? 2_000;
  const ttlMs = options.statsTtlMs ?? STATS_TTL_MS;
  let migrations: "pending" | "applied" | "failed" = "pending";
  db.ready.then(
    () => (migrations = "applied"),
    () => (migrations = "failed"),
  );
  let draining = false;
  const watched = new Map<string, () => string | null>();
  startProcessMetrics();

  // /readyz is unauthenticated: whatever the request rate, the database is asked at most once a second, one query
  // at a time; every check meanwhile reads the last answer. The other checks cost nothing and are read live.
  let lastDatabase: { at: number; value: Health["database"] } | undefined;
  let asking: Promise<Health["database"]> | undefined;
  function databaseAtMostEverySecond(): Promise<Health["database"]> {
    if (lastDatabase && Date.now() - lastDatabase.at < DATABASE_CHECK_TTL_MS)
      return Promise.resolve(lastDatabase.value);
    asking ??= checkDatabase(db, timeoutMs)
      .then(({ database }) => {
        lastDatabase = { at: Date.now(), value: database };
        return database;
      })
      .finally(() => (asking = undefined));
    return asking;
  }

  async function check() {
    const database = migrations === "applied" ? await databaseAtMostEverySecond() : undefined;
    const beat = worker?.lastBeat();
    const beatAge = beat === undefined ? undefined : Date.now() - beat;
    const checks = {
      migrations,
      database: database ? (database.reachable ? "ok" : (database.error ?? "unreachable")) : "waiting for migrations",
      ...(worker
        ? {
            worker:
              beatAge === undefined ? "no heartbeat yet" : beatAge <= HEARTBEAT_STALE_MS ? "ok" : "heartbeat stale",
          }
        : {}),
      draining,
    };
    const problems = Object.fromEntries([...watched].map(([name, problem]) => [name, problem() ?? "ok"]));
    // Shown only while it fails: writes refused for want of space.
    const storage = storageProblem();
    if (storage) problems.storage = storage;
    const ok =
      !draining &&
      migrations === "applied" &&
      checks.database === "ok" &&
      (!worker || checks.worker === "ok") &&
      Object.values(problems).every((p) => p === "ok");
    return { ok, checks: { ...checks, ...problems } };
  }

  // The queue's stats: one read at a time, reused for ttlMs; a read that fails or hangs leaves the gauges out.
  let stats: { at: number; value: QueueStats } | undefined;
  let reading: Promise<QueueStats> | undefined;
  function queueStats(): Promise<QueueStats> {
    if (stats && Date.now() - stats.at < ttlMs) return Promise.resolve(stats.value);
    reading ??= Promise.race([
      readQueueStats(db.prisma, new Date(), timeoutMs),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out")), timeoutMs + 500).unref()),
    ])
      .then((value) => {
        stats = { at: Date.now(), value };
        return value;
      })
      .finally(() => (reading = undefined));
    return reading;
  }

  const fromDatabase: ScrapeHook = async () => {
    try {
      const s = await queueStats();
      queueJobs.series("due").set(s.due);
      queueJobs.series("scheduled").set(s.scheduled);
      queueJobs.series("running").set(s.running);
      queueOldestDueSeconds.series().set(s.oldestDueSeconds);
      backfillsRunning.series().set(s.backfillsRunning);
      workersAlive.series().set(s.workersAlive);
    } catch {
      for (const gauge of [queueJobs, queueOldestDueSeconds, backfillsRunning, workersAlive]) gauge.clear();
    }
  };
  // The readiness a scrape reports, also kept ttlMs: a scrape should cost the database one query at most, and seldom.
  let lastCheck: { at: number; ok: boolean } | undefined;
  const fromProcess: ScrapeHook = async () => {
    const pool = db.pool();
    dbPoolMax.series().set(pool.max);
    if (pool.open !== undefined && pool.idle !== undefined) {
      dbPoolConnections.series("idle").set(pool.idle);
      dbPoolConnections.series("in_use").set(pool.open - pool.idle);
    }
    if (pool.waiting !== undefined) dbPoolWaiting.series().set(pool.waiting);
    // Draining reads 0 whatever the check says: no database query for it while the database is being closed.
    if (!lastCheck || Date.now() - lastCheck.at >= ttlMs) lastCheck = { at: Date.now(), ok: (await check()).ok };
    readyGauge.series().set(lastCheck.ok && !draining ? 1 : 0);
    const beat = worker?.lastBeat();
    if (beat === undefined) heartbeatAgeSeconds.clear();
    else heartbeatAgeSeconds.series().set((Date.now() - beat) / 1000);
  };

  return {
    liveness() {
      if (migrations === "failed")
        return json(503, { alive: false, reason: "the database migrations failed at start: restart the process" });
      return json(200, { alive: true });
    },
    async readiness() {
      const { ok, checks } = await check();
      return json(ok ? 200 : 503, { ready: ok, checks });
    },
    async metrics(authorization, listener) {
      if (!metricsEnabled()) return text(404, "Metrics are off (METRICS_ENABLED=false).\n");
      const token = env().METRICS_TOKEN;
      // On the app's own port /metrics exists only with a token; the private listener may serve it without one.
      if (!token && listener === "public") return text(404, "Not Found\n");
      if (token && !tokenMatches(authorization, token))
        return text(401, "Unauthorized\n", { "WWW-Authenticate": 'Bearer realm="metrics"' });
      const { contentType, body } = await renderMetrics([fromDatabase, fromProcess]);
      return text(200, body, { "Content-Type": contentType });
    },
    markDraining() {
      draining = true;
    },
    watch(name, problem) {
      watched.set(name, problem);
    },
  };
}

/** An OpsAnswer as a Fetch Response (the Remix routes). */
export const toResponse = (answer: OpsAnswer) =>
  new Response(answer.body, { status: answer.status, headers: answer.headers });
