// The sync worker: leases jobs, maps Shopify data, routes it to the customer's workspace, imports it through the
// service client and records the outcome in words a merchant can read. Runs in the app process (background.server)
// or as `npm run worker`; any number of them may share one PostgreSQL database.
//
// Collaborators come in as `SyncDeps` (service client, settings loader, grant store factory, Admin API, clock), so
// tests replace exactly what they need. Nothing here imports Remix.
import { randomUUID } from "node:crypto";
import type { Job, Prisma, PrismaClient, SyncRecord } from "@prisma/client";
import type { GrantStore } from "../service/grant-store.server";
import type { ImportOutcome } from "../service/imports.server";
import type { ServiceSettings } from "../service/context.server";
import type { Failure } from "../service/outcomes.server";
import { contentHash, idempotencyKey, meaningHash, type SyncKind } from "./idempotency.server";
import { customerIdOf, mapFulfillment, mapOrder, type Mapped, type ShopifyFulfillment, type ShopifyOrder } from "./mapping.server";
import {
  backoffMs,
  completeJob,
  DEFAULT_LEASE_MS,
  failJob,
  leaseJobs,
  orderKeyOf,
  rescheduleJob,
  wakeJobs,
} from "./queue.server";
import { routeCustomer, type RoutedGrant } from "./routing.server";
import { runBackfillJob, type AdminGraphql } from "./backfill.server";
import { onWorkNotified } from "./signal.server";
import { runHousekeeping } from "../privacy/housekeeping.server";

export interface SyncLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export type ImportFn = (
  settings: ServiceSettings,
  store: GrantStore,
  request: unknown,
  options: { idempotencyKey: string },
) => Promise<ImportOutcome>;

export interface SyncDeps {
  prisma: PrismaClient;
  now?: () => Date;
  random?: () => number;
  logger?: SyncLogger;
  /** The shop's decrypted service settings, or null when not configured. */
  loadSettings: (shop: string) => Promise<ServiceSettings | null>;
  /** The GrantStore over one CustomerGrant row (decrypting tokens). */
  grantStore: (grant: RoutedGrant) => GrantStore;
  importOrder: ImportFn;
  importShipment: ImportFn;
  /** Admin GraphQL API for backfills. */
  adminGraphql?: AdminGraphql;
}

const attemptsText = (n: number) => `${n} attempt${n === 1 ? "" : "s"}`;

const silent: SyncLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** How long work that waits for a person (reconnect, settings) sleeps before looking again on its own. */
const WAIT_FOR_PERSON_MS = 6 * 3600_000;
const WAIT_FOR_SETTINGS_MS = 10 * 60_000;
/** The reason on records that wait for the shop's settings; saving settings wakes them (on-settings-saved.server.ts). */
export const SETTINGS_MISSING_REASON = "The Merchant Integration Service is not set up for this shop yet (Settings).";
const WAIT_FOR_ORDER_MS = 60_000;

const IMPORTED = new Set(["imported", "updated"]);
const ORDER_NOT_IMPORTED = "Its order was not imported:";

type Resolved = Required<Pick<SyncDeps, "now" | "random" | "logger">> & SyncDeps;
const resolve = (deps: SyncDeps): Resolved => ({
  ...deps,
  now: deps.now ?? (() => new Date()),
  random: deps.random ?? Math.random,
  logger: deps.logger ?? silent,
});

/** Runs one leased job to its next state. Never throws: a crash becomes a retry, then a final failure. */
export async function runJob(input: SyncDeps, job: Job): Promise<void> {
  const deps = resolve(input);
  const log = deps.logger;
  try {
    if (job.kind === "backfill") {
      if (!deps.adminGraphql) throw new Error("no Admin API client configured for backfills");
      await runBackfillJob(deps.prisma, job, { adminGraphql: deps.adminGraphql, now: deps.now });
      await completeJob(deps.prisma, job, deps.now());
      return;
    }
    if (job.kind !== "order" && job.kind !== "shipment") {
      await failJob(deps.prisma, job, `unknown job kind ${job.kind}`, deps.now());
      return;
    }
    await runImportJob(deps, job, job.kind);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.error({ jobId: job.id, kind: job.kind, err: message }, "job crashed");
    const reason = `Internal error while processing (${message.slice(0, 200)}).`;
    if (job.attempts >= job.maxAttempts) {
      const recordId = job.recordId;
      await transition(
        deps,
        (tx) => failJob(tx, job, reason, deps.now()),
        recordId ? { id: recordId, data: { state: "failed", reason: `Gave up after ${attemptsText(job.attempts)}. ${reason}` } } : undefined,
      ).catch(() => undefined);
    } else {
      const runAt = new Date(deps.now().getTime() + backoffMs(job.attempts, undefined, deps.random));
      await rescheduleJob(deps.prisma, job, { runAt, error: reason }).catch(() => undefined);
    }
  }
}

async function payloadOf(deps: Resolved, job: Job): Promise<unknown> {
  if (job.deliveryId) {
    const delivery = await deps.prisma.webhookDelivery.findUnique({ where: { id: job.deliveryId }, select: { payload: true } });
    if (delivery) return delivery.payload;
  }
  return (job.payload as { data?: unknown } | null)?.data;
}

function setRecord(deps: Resolved, id: string, data: Partial<SyncRecord>) {
  return deps.prisma.syncRecord.update({ where: { id }, data });
}

/**
 * Moves the job (a write fenced by its lease) and, only when that worked, writes the record, in one transaction:
 * a worker whose lease was taken over (it hung past it) must not overwrite what its successor recorded.
 */
async function transition(
  deps: Resolved,
  moveJob: (tx: Prisma.TransactionClient) => Promise<boolean>,
  record?: { id: string; data: Partial<SyncRecord> },
): Promise<boolean> {
  const moved = await deps.prisma.$transaction(async (tx) => {
    if (!(await moveJob(tx))) return false;
    if (record) await tx.syncRecord.update({ where: { id: record.id }, data: record.data });
    return true;
  });
  if (!moved) deps.logger.warn({ recordId: record?.id }, "lease lost; the new holder records the outcome");
  return moved;
}

async function ensureRecord(deps: Resolved, job: Job, kind: SyncKind, externalId: string, orderId: string): Promise<SyncRecord> {
  const record = await deps.prisma.syncRecord.upsert({
    where: { shop_kind_externalId: { shop: job.shop, kind, externalId } },
    create: { shop: job.shop, kind, externalId, orderId },
    update: {},
  });
  if (job.recordId !== record.id) await deps.prisma.job.update({ where: { id: job.id }, data: { recordId: record.id } });
  return record;
}

/** Final for this content: the record shows why, the job is done (a later change or a retry runs it again). */
async function settle(
  deps: Resolved,
  job: Job,
  record: SyncRecord,
  state: "skipped" | "failed",
  reason: string,
  newer: Partial<SyncRecord> = {},
): Promise<boolean> {
  const settled = await transition(
    deps,
    (tx) => (state === "failed" ? failJob(tx, job, reason, deps.now()) : completeJob(tx, job, deps.now())),
    { id: record.id, data: { state, reason, attempts: job.attempts, lastAttemptAt: deps.now(), customerId: record.customerId, ...newer } },
  );
  if (settled) deps.logger.info({ jobId: job.id, recordId: record.id, state }, "record settled");
  return settled;
}

/** Waits for something outside our control (a person, its order) without using up the attempt budget. */
async function wait(
  deps: Resolved,
  job: Job,
  record: SyncRecord,
  reason: string,
  delayMs: number,
  extra: Partial<SyncRecord> = {},
  payload?: Prisma.InputJsonValue,
) {
  await transition(
    deps,
    async (tx) => {
      if (!(await rescheduleJob(tx, job, { runAt: new Date(deps.now().getTime() + delayMs), error: reason, countAttempt: false }))) return false;
      if (payload !== undefined) await tx.job.update({ where: { id: job.id }, data: { payload } });
      return true;
    },
    { id: record.id, data: { state: "waiting", reason, lastAttemptAt: deps.now(), customerId: record.customerId, ...extra } },
  );
}

async function runImportJob(deps: Resolved, job: Job, kind: SyncKind) {
  const payload = await payloadOf(deps, job);
  const p = (payload ?? {}) as Record<string, unknown>;
  const mapped: Mapped<unknown> =
    kind === "order" ? mapOrder(p as unknown as ShopifyOrder) : mapFulfillment(p as unknown as ShopifyFulfillment);
  const externalId = String(p.id ?? "");
  const orderId = String((kind === "order" ? p.id : p.order_id) ?? "");
  if (!externalId || !orderId) {
    await failJob(deps.prisma, job, "the payload has no id", deps.now());
    return;
  }
  let record = await ensureRecord(deps, job, kind, externalId, orderId);
  const stored = record.customerId;

  // Shopify does not deliver in order (a failed delivery is retried later): content older than what was already
  // handled for this resource is not sent, or it would overwrite the newer content at the service.
  const sourceAt = sourceUpdatedAt(p);
  if (sourceAt && record.sourceUpdatedAt && sourceAt < record.sourceUpdatedAt) {
    deps.logger.info({ jobId: job.id, recordId: record.id }, "older than the content already handled; not sent");
    await completeJob(deps.prisma, job, deps.now());
    return;
  }
  // Written with the outcome that settles this content (sent, already there, skipped or failed).
  const newer = sourceAt && (!record.sourceUpdatedAt || sourceAt > record.sourceUpdatedAt) ? { sourceUpdatedAt: sourceAt } : {};

  // Which customer (and so which workspace): the order's own customer, or for a shipment its order's.
  let customerId: string | undefined;
  let orderRecord: SyncRecord | null = null;
  if (kind === "order") {
    customerId = customerIdOf(p as unknown as ShopifyOrder);
  } else {
    orderRecord = await deps.prisma.syncRecord.findUnique({
      where: { shop_kind_externalId: { shop: job.shop, kind: "order", externalId: orderId } },
    });
    customerId = orderRecord?.customerId ?? undefined;
  }
  if (customerId && record.customerId !== customerId) {
    // Written with the next update of the record (every path below makes one).
    record = { ...record, customerId };
  }

  if (!mapped.ok) return settle(deps, job, record, mapped.state, mapped.reason, newer);

  if (kind === "order" && !customerId) {
    return settle(deps, job, record, "skipped", "The order has no customer, so there is no workspace to import it into.", newer);
  }
  if (kind === "shipment") {
    if (!orderRecord || !IMPORTED.has(orderRecord.state) || !orderRecord.workspaceId) {
      if (orderRecord && (orderRecord.state === "skipped" || orderRecord.state === "failed")) {
        return settle(deps, job, record, "skipped", `${ORDER_NOT_IMPORTED} ${orderRecord.reason ?? orderRecord.state}`, newer);
      }
      return wait(deps, job, record, "Waiting for its order to be imported first.", WAIT_FOR_ORDER_MS);
    }
  }

  const route = await routeCustomer(deps.prisma, job.shop, customerId!);
  if (route.kind === "not_connected") {
    if (!(await settle(deps, job, record, "skipped", route.reason, newer))) return;
    // The customer may have connected between the grant read and the skip: onCustomerConnected then ran before the
    // skip was written and did not see it. Looking again after writing it closes that gap (one of the two sees the other).
    if ((await routeCustomer(deps.prisma, job.shop, customerId!)).kind !== "not_connected") {
      await deps.prisma.job.updateMany({
        where: { id: job.id, status: "done" },
        data: { status: "queued", runAt: deps.now(), attempts: 0, lastError: null, leasedBy: null, leaseUntil: null, finishedAt: null },
      });
    }
    return;
  }
  if (route.kind === "needs_reconnect") return wait(deps, job, record, route.reason, WAIT_FOR_PERSON_MS);

  if (kind === "shipment" && orderRecord!.workspaceId !== route.grant.workspaceId) {
    // The customer reconnected to another workspace since the order was imported: the order goes there first
    // (the service would answer order_not_found for ever), then this shipment.
    if (await requeueOrder(deps, job.shop, orderRecord!.id)) {
      return wait(deps, job, record, "Waiting for its order to be imported into the customer's current workspace first.", WAIT_FOR_ORDER_MS);
    }
  }

  const settings = await deps.loadSettings(job.shop);
  if (!settings) {
    return wait(deps, job, record, SETTINGS_MISSING_REASON, WAIT_FOR_SETTINGS_MS);
  }

  const hash = contentHash(mapped.request);
  const meaning = meaningHash(mapped.request);
  if (record.sentHash === meaning && record.workspaceId === route.grant.workspaceId && IMPORTED.has(record.state)) {
    // this very content is already at the service
    const data = { ...(record.customerId !== stored ? { customerId: record.customerId } : {}), ...newer };
    await transition(deps, (tx) => completeJob(tx, job, deps.now()), Object.keys(data).length > 0 ? { id: record.id, data } : undefined);
    return;
  }
  // The same content on top of the same last accepted import gives the same key (a retry or a takeover is replayed);
  // content that comes back after another version was accepted (A → B → A) gets a new one and is applied again.
  const key = idempotencyKey(job.shop, kind, externalId, hash, record.importedAt);
  await setRecord(deps, record.id, { contentHash: hash, attempts: job.attempts, lastAttemptAt: deps.now(), customerId: record.customerId });

  const send = kind === "order" ? deps.importOrder : deps.importShipment;
  const outcome = await send(settings, deps.grantStore(route.grant), mapped.request, { idempotencyKey: key });

  if (outcome.ok) {
    // The service's own word when it uses ours (a replay repeats the first answer); otherwise: sent before → update.
    const status = outcome.data.status;
    const state =
      status === "imported" || status === "updated"
        ? status
        : record.sentHash && record.workspaceId === route.grant.workspaceId
          ? "updated"
          : "imported";
    // Job and record change together, and only while this worker still holds the lease: a worker that was taken
    // over (it hung past its lease) must not overwrite what its successor recorded.
    const recorded = await deps.prisma.$transaction(async (tx) => {
      if (!(await completeJob(tx, job, deps.now()))) return false;
      await tx.syncRecord.update({
        where: { id: record.id },
        data: {
          state,
          reason: null,
          sentHash: meaning,
          workspaceId: route.grant.workspaceId,
          serviceId: outcome.data.id,
          serviceStatus: status,
          importedAt: deps.now(),
          ...newer,
        },
      });
      return true;
    });
    if (!recorded) {
      deps.logger.warn({ jobId: job.id, recordId: record.id }, "lease lost before recording; the new holder records it");
      return;
    }
    deps.logger.info({ jobId: job.id, recordId: record.id, kind, state, replayed: outcome.replayed }, "imported");
    if (kind === "order") await wakeShipments(deps, job.shop, orderId);
    return;
  }
  await handleFailure(deps, job, record, kind, outcome);
}

/** Shopify's `updated_at` of a webhook payload (backfill payloads have none). */
function sourceUpdatedAt(payload: Record<string, unknown>): Date | undefined {
  const value = payload.updated_at;
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** Queues the latest job of an order record again (true), or finds it queued or running already (true). */
async function requeueOrder(deps: Resolved, shop: string, orderRecordId: string): Promise<boolean> {
  const latest = await deps.prisma.job.findFirst({ where: { shop, recordId: orderRecordId }, orderBy: { seq: "desc" } });
  if (!latest) return false; // pruned long ago: nothing to send it again from
  if (latest.status === "queued" || latest.status === "running") return true;
  const result = await deps.prisma.job.updateMany({
    where: { id: latest.id, status: latest.status },
    data: { status: "queued", runAt: deps.now(), attempts: 0, lastError: null, leasedBy: null, leaseUntil: null, finishedAt: null },
  });
  return result.count === 1;
}

/** Shipments of an order that just got imported: those waiting run now, those skipped for it run again. */
async function wakeShipments(deps: Resolved, shop: string, orderId: string) {
  const now = deps.now();
  await wakeJobs(deps.prisma, { shop, orderKey: orderKeyOf(orderId), kind: "shipment" }, now);
  const skipped = await deps.prisma.syncRecord.findMany({
    where: {
      shop,
      kind: "shipment",
      orderId,
      OR: [{ state: "waiting" }, { state: "skipped", reason: { startsWith: ORDER_NOT_IMPORTED } }],
    },
    select: { id: true },
  });
  for (const { id } of skipped) {
    const latest = await deps.prisma.job.findFirst({ where: { shop, recordId: id }, orderBy: { seq: "desc" } });
    if (latest && latest.status !== "running" && latest.status !== "queued") {
      // Only from the status just read: a job leased meanwhile (a retry, another worker) must not go back to queued
      // while it runs, or a second worker would run it at the same time.
      await deps.prisma.job.updateMany({
        where: { id: latest.id, status: latest.status },
        data: { status: "queued", runAt: now, attempts: 0, lastError: null, leasedBy: null, leaseUntil: null, finishedAt: null },
      });
    }
  }
}

const WAIT_FOR_RECONNECT = new Set<Failure["kind"]>(["reconnect_required", "invalid_token", "insufficient_scope"]);
// With content-derived keys the same key always carries the same bytes: a conflict can only mean "still in flight".
const RETRY = new Set<Failure["kind"]>(["rate_limited", "server_error", "network_error", "timeout", "idempotency_conflict", "replayed_request"]);

async function handleFailure(deps: Resolved, job: Job, record: SyncRecord, kind: SyncKind, outcome: Failure) {
  const now = deps.now();
  deps.logger.warn({ jobId: job.id, recordId: record.id, kind, failure: outcome.kind, status: outcome.status }, "import failed");
  if (WAIT_FOR_RECONNECT.has(outcome.kind)) {
    return wait(deps, job, record, `${outcome.message} Waiting for the customer to reconnect; nothing is lost.`, WAIT_FOR_PERSON_MS);
  }
  if (outcome.kind === "order_not_found") {
    // Never dropped, and no attempt used up; waits that do not count attempts would never grow, so the job keeps
    // its own count of order_not_found answers (5 s, 10 s, 20 s … up to 15 min).
    const payload = (job.payload ?? {}) as Record<string, unknown>;
    const times = (typeof payload.orderNotFound === "number" ? payload.orderNotFound : 0) + 1;
    const delay = backoffMs(times, outcome.retryAfterMs, deps.random, 5_000);
    return wait(deps, job, record, "Waiting for the service to have its order; will try again.", delay, {}, { ...payload, orderNotFound: times } as Prisma.InputJsonValue);
  }
  if (RETRY.has(outcome.kind) || outcome.retryable) {
    if (job.attempts >= job.maxAttempts) {
      const reason = `Gave up after ${attemptsText(job.attempts)}. ${outcome.message}`;
      await transition(deps, (tx) => failJob(tx, job, reason, now), { id: record.id, data: { state: "failed", reason } });
      return;
    }
    const delay = backoffMs(job.attempts, outcome.retryAfterMs, deps.random);
    const runAt = new Date(now.getTime() + delay);
    const reason = `${outcome.message} Will try again at ${runAt.toISOString().slice(11, 19)} UTC (attempt ${job.attempts} of ${job.maxAttempts}).`;
    await transition(deps, (tx) => rescheduleJob(tx, job, { runAt, error: outcome.message }), {
      id: record.id,
      data: { state: IMPORTED.has(record.state) ? record.state : "pending", reason },
    });
    return;
  }
  await transition(deps, (tx) => failJob(tx, job, outcome.message, now), { id: record.id, data: { state: "failed", reason: outcome.message } });
}

export interface WorkerOptions {
  workerId?: string;
  /** Jobs run at once by this worker. */
  concurrency?: number;
  leaseMs?: number;
  /** Sleep between polls when there is nothing to do. */
  pollMs?: number;
  /** How often to run housekeeping: revocations, retention (0 = never). Default every 10 minutes. */
  pruneEveryMs?: number;
}

export interface RunningWorker {
  id: string;
  /** Stops leasing, waits for running jobs to finish. */
  stop(): Promise<void>;
}

/** Runs until stopped: lease a batch, run it, repeat; sleep `pollMs` (or until notified) when idle. */
export function startWorker(input: SyncDeps, options: WorkerOptions = {}): RunningWorker {
  const deps = resolve(input);
  const id = options.workerId ?? `worker-${process.pid}-${randomUUID().slice(0, 8)}`;
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 1_000;
  let stopping = false;
  let wake: (() => void) | null = null;
  let notified = false; // a notification that came while leasing or running is not lost
  const unsubscribe = onWorkNotified(() => {
    notified = true;
    wake?.();
  });
  deps.logger.info({ workerId: id, concurrency }, "worker started");

  const pruneEveryMs = options.pruneEveryMs ?? 600_000;
  let nextPrune = Date.now() + Math.min(60_000, pruneEveryMs);

  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      if (pruneEveryMs > 0 && Date.now() >= nextPrune) {
        nextPrune = Date.now() + pruneEveryMs;
        const done = await runHousekeeping(deps.prisma, { now: deps.now(), log: (event, facts) => deps.logger.info({ workerId: id, ...facts }, event) });
        if (done.errors.length > 0) deps.logger.warn({ workerId: id, errors: done.errors }, "housekeeping failed in part");
      }
      let jobs: Job[] = [];
      notified = false;
      try {
        jobs = await leaseJobs(deps.prisma, { workerId: id, limit: concurrency, leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, now: deps.now() });
        failures = 0;
      } catch (error) {
        failures += 1;
        deps.logger.error({ workerId: id, err: error instanceof Error ? error.message : String(error) }, "lease failed");
      }
      if (jobs.length > 0) {
        await Promise.all(jobs.map((job) => runJob(deps, job)));
        continue;
      }
      if (stopping) break;
      if (notified && failures === 0) continue;
      await new Promise<void>((resolveSleep) => {
        const timer = setTimeout(done, failures > 0 ? Math.min(30_000, pollMs * 2 ** failures) : pollMs);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolveSleep();
        }
        wake = done;
      });
    }
  })();

  return {
    id,
    async stop() {
      stopping = true;
      wake?.();
      unsubscribe();
      await loop;
      deps.logger.info({ workerId: id }, "worker stopped");
    },
  };
}

/** Runs due jobs until none is left (tests, scripts). Returns how many ran. */
export async function drainJobs(input: SyncDeps, options: WorkerOptions & { maxRounds?: number } = {}): Promise<number> {
  const deps = resolve(input);
  const id = options.workerId ?? `drain-${randomUUID().slice(0, 8)}`;
  let ran = 0;
  for (let round = 0; round < (options.maxRounds ?? 1000); round++) {
    const jobs = await leaseJobs(deps.prisma, { workerId: id, limit: options.concurrency ?? 8, leaseMs: options.leaseMs, now: deps.now() });
    if (jobs.length === 0) break;
    await Promise.all(jobs.map((job) => runJob(deps, job)));
    ran += jobs.length;
  }
  return ran;
}
