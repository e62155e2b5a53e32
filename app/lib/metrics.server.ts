// The process's Prometheus metrics (docs/operations.md lists them with what each alert means). Every family lives
// here, in a registry of this module's own (a second copy of the module, as when the tests import the sources beside
// the app's build, keeps its own and never clashes). Areas count into a series: `family.series(...labels)` once,
// where their setup runs, then `inc()` / `observe()` on it; on the hot paths that is one bound call with no label
// object built per delivery. Label values are small fixed sets (topic, kind, outcome, reason code, endpoint,
// status): never a shop, customer, order or job id. With METRICS_ENABLED=false every series is a no-op.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { env } from "../env.server";

const METRICS_PREFIX = "merchant_integration_";

export const registry = new Registry();

export interface CountSeries {
  inc(by?: number): void;
}
export interface ObserveSeries {
  observe(value: number): void;
}
export interface LevelSeries {
  set(value: number): void;
}

const NOOP: CountSeries & ObserveSeries & LevelSeries = { inc() {}, observe() {}, set() {} };

export const metricsEnabled = () => env().METRICS_ENABLED === "true";

/** A metric family: its series by label values, each bound once and kept (a map lookup after the first). */
export class Family<S> {
  private readonly bound = new Map<string, S>();
  constructor(private readonly bind: (values: string[]) => S) {}

  /** The series for these label values, in the family's label order (none for a family without labels). */
  series(...values: string[]): S {
    const key = values.length === 1 ? values[0] : values.join("\u0000");
    let series = this.bound.get(key);
    if (!series) {
      series = metricsEnabled() ? this.bind(values) : (NOOP as S);
      this.bound.set(key, series);
    }
    return series;
  }
}

function counter(name: string, help: string, labelNames: string[] = []): Family<CountSeries> {
  const metric = new Counter({ name: METRICS_PREFIX + name, help, labelNames, registers: [registry] });
  return new Family((values) =>
    labelNames.length ? metric.labels(...values) : { inc: (by?: number) => metric.inc(by ?? 1) },
  );
}

function histogram(name: string, help: string, buckets: number[], labelNames: string[] = []): Family<ObserveSeries> {
  const metric = new Histogram({ name: METRICS_PREFIX + name, help, labelNames, buckets, registers: [registry] });
  return new Family((values) =>
    labelNames.length ? metric.labels(...values) : { observe: (v: number) => metric.observe(v) },
  );
}

function gauge(name: string, help: string, labelNames: string[] = []): Family<LevelSeries> & { clear(): void } {
  const metric = new Gauge({ name: METRICS_PREFIX + name, help, labelNames, registers: [registry] });
  const family = new Family((values) =>
    labelNames.length ? metric.labels(...values) : { set: (v: number) => metric.set(v) },
  );
  // A value read at scrape time that could not be read this time is dropped, not left standing at its old value.
  return Object.assign(family, { clear: () => metric.reset() });
}

// Seconds: an answer to Shopify (milliseconds), a request to the service, a wait for a rate slot.
const FAST_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Seconds from a delivery to its import: a second when all is well, hours when a customer must reconnect.
const LAG_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400];

// Intake (app/shopify/webhook.server.ts, app/sync/intake.server.ts).
export const webhookDeliveries = counter(
  "webhook_deliveries_total",
  "Webhook deliveries answered, by topic and outcome: accepted, duplicate (a redelivery, answered 200), refused (with the reason), unavailable (503: not stored, Shopify delivers again).",
  ["topic", "outcome", "reason"],
);
export const webhookAnswerSeconds = histogram(
  "webhook_answer_seconds",
  "Time from the route taking a sync delivery (body read, HMAC, stored) to its answer, by topic.",
  FAST_SECONDS,
  ["topic"],
);
export const intakeBatchDeliveries = histogram(
  "intake_batch_deliveries",
  "Deliveries written by one intake statement (group commit).",
  [1, 2, 4, 8, 16, 32, 64, 128],
);

// Queue (read from the database at scrape time, cached: app/sync/queue-stats.server.ts), and this process's leases.
export const queueJobs = gauge(
  "queue_jobs",
  "Jobs in the queue by state: due (queued, run time passed), scheduled (queued for later), running.",
  ["state"],
);
export const queueOldestDueSeconds = gauge(
  "queue_oldest_due_job_age_seconds",
  "How long the longest-waiting due job has been due (shops paused or uninstalled left out); 0 when none is due.",
);
export const workersAlive = gauge("workers_alive", "Sync workers whose heartbeat is fresh, in every process.");
export const leasedJobs = counter("queue_leased_jobs_total", "Jobs this process leased, by kind.", ["kind"]);
export const reclaimedJobs = counter(
  "queue_reclaimed_jobs_total",
  "Jobs whose lease had expired (their worker died or hung), put back in the queue by this process.",
);
export const leaseFailures = counter(
  "queue_lease_failures_total",
  "Leases this process could not take (the database did not answer).",
);

// Imports (app/sync/import-job.server.ts, record-state.server.ts).
export const imports = counter(
  "imports_total",
  "Import jobs run to their next state, by kind (order, shipment) and outcome: imported, updated, unchanged (already at the service), skipped, waiting, retrying, failed.",
  ["kind", "outcome"],
);
export const importFailures = counter(
  "import_failures_total",
  "Imports that became failed, by kind and reason code (app/sync/reasons.ts).",
  ["kind", "reason"],
);
export const importAttempts = counter(
  "import_attempts_total",
  "Sends of an import to the service, by kind and result: ok, or the failure kind (rate_limited, server_error, timeout, …).",
  ["kind", "result"],
);
export const importLagSeconds = histogram(
  "import_lag_seconds",
  "Time from a delivery's job being queued to its import recorded, by kind.",
  LAG_SECONDS,
  ["kind"],
);

// The service (app/service/address-policy.server.ts: every request it is sent; app/service/rate-limiter.server.ts).
export const serviceRequests = counter(
  "service_requests_total",
  'Requests sent to the service, by endpoint and status (the HTTP status, or timeout / network_error); 429s are status="429".',
  ["endpoint", "status"],
);
export const serviceRequestSeconds = histogram(
  "service_request_seconds",
  "Time to the service's answer, by endpoint.",
  FAST_SECONDS,
  ["endpoint"],
);
export const schedulerWaitSeconds = histogram(
  "service_scheduler_wait_seconds",
  "Time a request to the service waited in this process's rate scheduler for a slot.",
  [0, 0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
);
export const interactiveRefused = counter(
  "service_interactive_refused_total",
  "Continue cart requests refused a slot at once because the service's rate budget was spent (the shopper is asked to try again).",
);

export const serviceRateFallback = gauge(
  "service_rate_fallback",
  "1 while this process paces a service client on its own conservative share of the last known rate, because the database did not answer its rate lease in time (app/sync/shared-rate.server.ts); 0 when it draws on the shared budget.",
);
export const serviceRateLeases = counter(
  "service_rate_leases_total",
  "Batches of slots this process asked of the service's shared rate budget, by outcome: granted, empty (no room yet), failed (the database did not answer in time).",
  ["outcome"],
);
export const workerConcurrency = gauge(
  "worker_concurrency",
  "Jobs this process's sync worker runs at once: the service's rate times its answer time, within the configured bounds.",
);

// Shopify's Admin API (app/shopify/admin-cost-budget.server.ts) and backfills (app/sync/backfill.server.ts).
export const adminQueryCost = counter(
  "shopify_admin_query_cost_points_total",
  "Calculated query cost Shopify charged for this process's Admin API queries (points).",
);
export const adminThrottleWaitSeconds = counter(
  "shopify_admin_throttle_wait_seconds_total",
  "Time Admin API queries waited for the shop's cost bucket to refill (before sending, or after a THROTTLED answer).",
);
export const adminThrottled = counter(
  "shopify_admin_throttled_total",
  "Admin API answers that were THROTTLED (another process drew on the bucket).",
);
export const backfillsRunning = gauge("backfills_running", "Backfills of past orders still running, in every process.");
export const backfillPages = counter(
  "backfill_pages_total",
  "Pages of past orders fetched from the Admin API and queued.",
);

// Continue cart (app/handoff/flow.server.ts).
export const handoffs = counter(
  "handoffs_total",
  "Continue cart clicks by outcome: created, reused (the same cart's valid handoff), or the code the shopper was shown (busy, rate_limited, unavailable, failed, …).",
  ["outcome"],
);
export const handoffBudgetRefusals = counter(
  "handoff_budget_refusals_total",
  "Continue cart clicks refused by a budget: door (the shopper's address and the shop), cart, service (the rate budget shared with imports).",
  ["budget"],
);

export const sharedBudgetFallbacks = counter(
  "shared_budget_fallbacks_total",
  "Budget checks (Continue cart, shopper routes) this process answered from its own buckets because the shared ones in PostgreSQL did not answer in time.",
);

// The database pool (app/db/connect.server.ts) and the process's health (app/runtime/operations.server.ts).
export const dbPoolConnections = gauge(
  "db_pool_connections",
  "Database connections of this process by state: idle, in_use.",
  ["state"],
);
export const dbPoolWaiting = gauge(
  "db_pool_waiting_requests",
  "Queries of this process waiting for a free database connection.",
);
export const dbPoolMax = gauge(
  "db_pool_max_connections",
  "The most database connections this process opens (1 on embedded PGlite).",
);
export const ready = gauge("ready", "1 when this process is ready (/readyz answers 200), 0 when not.");
export const heartbeatAgeSeconds = gauge(
  "worker_heartbeat_age_seconds",
  "Seconds since this process's sync worker last wrote its heartbeat.",
);

/** Work done before a scrape (values read from the database or the pool); one that fails leaves its gauges out. */
export type ScrapeHook = () => Promise<void> | void;

let processMetrics = false;
/**
 * Node's default process metrics (CPU, memory, event loop, GC): started once, by a process that serves metrics.
 * The event loop's delay is sampled every 100 ms, not prom-client's 10: each sample wakes the loop, and 100 wake-ups
 * a second cost an idle process CPU (docs/decisions/0008) for a lag histogram no finer in practice.
 */
export function startProcessMetrics(): void {
  if (processMetrics || !metricsEnabled()) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
}

/** The exposition text (Prometheus's text format), after `before` ran. */
export async function renderMetrics(before: ScrapeHook[] = []): Promise<{ contentType: string; body: string }> {
  await Promise.allSettled(before.map(async (hook) => hook()));
  return { contentType: registry.contentType, body: await registry.metrics() };
}
