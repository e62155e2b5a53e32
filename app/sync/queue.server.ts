// The durable job queue, in the app's own database (PGlite or PostgreSQL).
//
// - A job is leased by one worker at a time: candidates are selected `FOR UPDATE SKIP LOCKED` and marked running
//   with `leasedBy` and `leaseUntil` in the same transaction, so several worker processes never take the same job.
// - A lease that expires (the worker died) puts the job back in the queue; its attempt counts.
// - Jobs of one order (same `orderKey`) run one at a time, in `seq` order, with one exception: an order job does
//   not wait behind a shipment of the same order (a shipment that arrived first waits for its order, not the other
//   way round).
// - Paused shops (ShopSettings.syncPaused) and uninstalled ones (uninstalledAt) are not leased; their jobs wait,
//   nothing is dropped.
// - Every write after the lease is fenced by `leasedBy`: a worker whose lease was taken over cannot overwrite.
import { Prisma, type Job, type PrismaClient } from "@prisma/client";
import { serviceRowJson, shopHeldSql, type ServiceSettingsRow } from "../db/shop-settings.server";
import { ts, type Db } from "../db/sql.server";
import { leasedJobs, reclaimedJobs } from "../lib/metrics.server";
import { because } from "./reasons";
import { queueFlowTriggerOnFailure } from "./flow-trigger.server";

export type JobKind = "order" | "shipment" | "backfill" | "bulk_backfill" | "flow_trigger";

export const DEFAULT_LEASE_MS = 5 * 60_000;
export const DEFAULT_MAX_ATTEMPTS = 12;

export interface NewJob {
  shop: string;
  kind: JobKind;
  orderKey?: string | null;
  payload?: unknown;
  deliveryId?: string | null;
  recordId?: string | null;
  runAt?: Date;
  maxAttempts?: number;
}

export async function enqueueJob(db: Db, job: NewJob): Promise<string> {
  const created = await db.job.create({
    data: {
      shop: job.shop,
      kind: job.kind,
      orderKey: job.orderKey ?? null,
      payload: (job.payload ?? {}) as Prisma.InputJsonValue,
      deliveryId: job.deliveryId ?? null,
      recordId: job.recordId ?? null,
      runAt: job.runAt ?? new Date(),
      maxAttempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    },
    select: { id: true },
  });
  return created.id;
}

export interface LeaseOptions {
  workerId: string;
  limit?: number;
  leaseMs?: number;
  now?: Date;
}

/** Shops looked at beyond `limit`, in case some have only work that waits behind a running job of its order. */
const SPARE_SHOPS = 8;

const LEASE_EXPIRED = "The worker stopped before finishing (its lease expired); taken over by another worker.";

/**
 * Jobs whose lease expired (their worker died or hung) go back to the queue at once; attempts already counted.
 * A job that used up its attempts this way (it keeps killing workers) fails instead, with its record.
 */
async function reclaimExpired(prisma: PrismaClient, now = new Date()): Promise<number> {
  const exhausted = await prisma.$queryRaw<{ recordId: string | null; attempts: number }[]>`
    UPDATE "Job" SET status = 'failed', "finishedAt" = ${ts(now)}, "updatedAt" = ${ts(now)}, "leaseUntil" = NULL,
      "lastError" = 'The worker stopped while processing this job on every attempt; gave up.'
    WHERE status = 'running' AND "leaseUntil" < ${ts(now)} AND attempts >= "maxAttempts"
    RETURNING "recordId", attempts`;
  for (const job of exhausted) {
    const recordId = job.recordId;
    if (!recordId) continue;
    await prisma.$transaction(async (tx) => {
      await tx.syncRecord.update({
        where: { id: recordId },
        data: { state: "failed", ...because("lease_expired", { attempts: job.attempts }) },
      });
      await queueFlowTriggerOnFailure(tx, recordId, now);
    });
  }
  const requeued = await prisma.$executeRaw`
    UPDATE "Job" SET status = 'queued', "runAt" = ${ts(now)}, "leasedBy" = NULL, "leaseUntil" = NULL,
      "lastError" = ${LEASE_EXPIRED}, "updatedAt" = ${ts(now)}
    WHERE status = 'running' AND "leaseUntil" < ${ts(now)}`;
  return requeued + exhausted.length;
}

/**
 * Leases up to `limit` due jobs for `workerId`; each comes back with `attempts` already counting this run.
 *
 * Expired leases are reclaimed first (`reclaimExpired`). Then one statement (its own transaction):
 * - takes up to `limit + SPARE_SHOPS` shops with due work from `JobShop` in turn order (served shops move to the
 *   back, a shop with new work starts at the front), so a shop's backfill of 100,000 orders never holds back
 *   another shop's new order for more than one turn;
 * - walks each shop's queued jobs in `seq` order (partial index on queued jobs), locking candidates
 *   `FOR UPDATE SKIP LOCKED`, keeps the first per order, alternates between the shops and marks them running.
 *   Two workers leasing at once cannot take two jobs of one order: a job is only a candidate when no earlier job
 *   of its order is queued or running in the statement's snapshot (partial index on active jobs), and the rows the
 *   other worker is taking are locked (skipped) or, once committed, re-checked as running. The one allowed overlap
 *   is an order import beside a shipment of the same order that came first; that shipment then waits for its
 *   order, which is what it would do anyway;
 * - keeps `JobShop` true: a shop looked at with nothing to lease goes to the back with `dueAt` its next queued
 *   job's run time, or is removed when it has none; both only if its `version` is still the one read, since a
 *   job queued meanwhile (invisible to this snapshot) changes it.
 * So a lease reads O(limit) jobs whatever the backlog (see app/sync/README.md, "Leasing").
 */
export async function leaseJobs(prisma: PrismaClient, options: LeaseOptions): Promise<LeasedJob[]> {
  const now = options.now ?? new Date();
  const reclaimed = await reclaimExpired(prisma, now);
  if (reclaimed > 0) reclaimedJobs.series().inc(reclaimed);
  const [, leased] = await prisma.$transaction([
    prisma.$queryRaw(LEASE_PLANNER_SETTINGS),
    prisma.$queryRaw<LeasedJob[]>(leaseStatement({ ...options, now })),
  ]);
  for (const job of leased) leasedJobs.series(job.kind).inc();
  return leased.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
}

/**
 * Planner settings for the lease's transaction. Without fresh statistics (PGlite never gathers them; PostgreSQL only
 * after autovacuum's next analyze) the planner guesses a shop has a handful of queued jobs and reads them all
 * through a bitmap or the (shop, runAt) index, then sorts: 60,000 rows for a shop with a backfill. Off, the only
 * plan left walks the (shop, seq) index and stops at the limit. JIT is never worth it for a statement that reads a few dozen rows.
 */
export const LEASE_PLANNER_SETTINGS = Prisma.sql`SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true), set_config('jit', 'off', true)`;

/**
 * A leased job, with what every import reads before its service call read by the same statement (three round trips
 * less per import: with hundreds of jobs starting at once, each of their reads waited its turn for a pool connection
 * behind all the others', and the service's rate went unused meanwhile):
 * - the webhook delivery it imports: `deliveryFound` false when the job has no delivery or the delivery is gone
 *   (redacted), then `deliveryPayload` is null. `webhookId` is the delivery's X-Shopify-Webhook-Id, for the job's log
 *   lines (the intake logged it with the job id);
 * - its record (`recordRow`, the SyncRecord row as JSON; null when it has none or it is gone; ensureRecord);
 * - the shop's service settings as stored (`serviceRow`; null when the shop has no settings row).
 */
export type LeasedJob = Job & {
  deliveryPayload?: unknown;
  deliveryFound?: boolean;
  webhookId?: string | null;
  recordRow?: Record<string, unknown> | null;
  serviceRow?: ServiceSettingsRow | null;
};

/** A job's ids for its log lines: the job, and the webhook delivery it came from (as the intake logged it). */
export const jobRef = (job: Pick<Job, "id">) => ({
  jobId: job.id,
  webhookId: (job as LeasedJob).webhookId ?? undefined,
});

/** The lease's one statement (exported for the plan test and the bench's EXPLAIN ANALYZE). */
export function leaseStatement(options: LeaseOptions): Prisma.Sql {
  const now = options.now ?? new Date();
  const limit = options.limit ?? 1;
  const leaseUntil = new Date(now.getTime() + (options.leaseMs ?? DEFAULT_LEASE_MS));
  return Prisma.sql`
    WITH shops AS (
      -- quota: a shop gets about limit / shops turns; twice that, plus two, is enough candidates (2 × limit at most)
      SELECT q.shop, q.version, row_number() OVER (ORDER BY q.turn, q."dueAt", q.shop) AS "shopRank",
        LEAST(${limit * 2}, 2 * ((${limit} + count(*) OVER () - 1) / count(*) OVER ()) + 2) AS quota
      FROM (
        SELECT s.shop, s.version, s.turn, s."dueAt" FROM "JobShop" s
        WHERE s."dueAt" <= ${ts(now)}
          AND NOT ${shopHeldSql("s")}
        ORDER BY s.turn, s."dueAt", s.shop
        LIMIT ${limit + SPARE_SHOPS}
      ) q
    ), candidates AS (
      SELECT c.*, s."shopRank" FROM shops s CROSS JOIN LATERAL (SELECT * FROM (
        SELECT j.id, j.shop, j."orderKey", j.seq FROM "Job" j
        -- "IS TRUE" keeps the run time out of the index conditions: the walk is in seq order on the (shop, seq)
        -- index; the (shop, runAt) one would read and sort all of the shop's queued jobs
        WHERE j.shop = s.shop AND j.status = 'queued' AND (j."runAt" <= ${ts(now)}) IS TRUE
          AND (j."orderKey" IS NULL OR NOT EXISTS (
            SELECT 1 FROM "Job" p
            WHERE p.shop = j.shop AND p."orderKey" = j."orderKey" AND p.status IN ('queued', 'running') AND p.id <> j.id
              AND (p.status = 'running'
                OR (p.seq < j.seq AND p.status = 'queued' AND NOT (p.kind = 'shipment' AND j.kind = 'order')))))
        ORDER BY j.seq
        LIMIT ${limit * 2}
        FOR UPDATE OF j SKIP LOCKED
        -- the outer LIMIT stops the row locks at the quota; the inner constant one keeps the planner's estimate
        -- small (with only a computed LIMIT, PostgreSQL costs the scan as 10 % of the queue and JIT-compiles the
        -- statement: 1.5-3 s a lease at 100,000 queued)
      ) x LIMIT s.quota) c
    ), firsts AS (
      SELECT DISTINCT ON (COALESCE("orderKey", id)) id, shop, seq, "shopRank" FROM candidates ORDER BY COALESCE("orderKey", id), seq
    ), chosen AS (
      SELECT id, seq FROM (
        SELECT id, seq, "shopRank", row_number() OVER (PARTITION BY shop ORDER BY seq) AS turn FROM firsts
      ) ranked
      ORDER BY turn, "shopRank", seq
      LIMIT ${limit}
    ), leased AS (
      UPDATE "Job" SET status = 'running', "leasedBy" = ${options.workerId}, "leaseUntil" = ${ts(leaseUntil)},
        attempts = attempts + 1, "updatedAt" = ${ts(now)}
      FROM chosen WHERE "Job".id = chosen.id
      RETURNING "Job".*
    ), looked AS (
      -- each shop looked at: served (a job leased), idle (nothing it could lease now), and when its next queued job
      -- not taken by this lease runs (none: the shop has nothing queued left, in this snapshot)
      SELECT s.shop, s.version,
        EXISTS (SELECT 1 FROM leased l WHERE l.shop = s.shop) AS served,
        NOT EXISTS (SELECT 1 FROM candidates c WHERE c.shop = s.shop) AS idle,
        (SELECT j."runAt" FROM "Job" j WHERE j.shop = s.shop AND j.status = 'queued'
          AND NOT EXISTS (SELECT 1 FROM chosen c WHERE c.id = j.id) ORDER BY j."runAt" LIMIT 1) AS "nextRunAt"
      FROM shops s
    ), emptied AS (
      DELETE FROM "JobShop" t USING looked k
      WHERE t.shop = k.shop AND k."nextRunAt" IS NULL AND t.version = k.version
      RETURNING t.shop
    ), moved AS (
      -- to the back of the turn order; the due time only if nothing was queued for the shop since it was read
      UPDATE "JobShop" t SET turn = nextval('"JobShop_turn_seq"'),
        "dueAt" = CASE WHEN t.version = k.version THEN COALESCE(k."nextRunAt", t."dueAt") ELSE t."dueAt" END
      FROM looked k
      WHERE t.shop = k.shop AND (k.served OR k.idle) AND NOT (k."nextRunAt" IS NULL AND t.version = k.version)
    )
    SELECT l.*, d.payload AS "deliveryPayload", d.id IS NOT NULL AS "deliveryFound", d."webhookId" AS "webhookId",
      to_jsonb(r) AS "recordRow", ${serviceRowJson("ss")} AS "serviceRow"
    FROM leased l LEFT JOIN "WebhookDelivery" d ON d.id = l."deliveryId"
      LEFT JOIN "SyncRecord" r ON r.id = l."recordId"
      LEFT JOIN "ShopSettings" ss ON ss.shop = l.shop`;
}

/** Marks a leased job done. False when the lease was lost (another worker took the job over). */
export async function completeJob(db: Db, job: Pick<Job, "id" | "leasedBy">, now = new Date()): Promise<boolean> {
  const result = await db.job.updateMany({
    where: { id: job.id, status: "running", leasedBy: job.leasedBy },
    data: { status: "done", finishedAt: now, leaseUntil: null, lastError: null },
  });
  return result.count === 1;
}

export interface RescheduleOptions {
  runAt: Date;
  error: string;
  /** False: this run does not use up an attempt (waiting for something outside our control). */
  countAttempt?: boolean;
}

export async function rescheduleJob(
  db: Db,
  job: Pick<Job, "id" | "leasedBy">,
  options: RescheduleOptions,
): Promise<boolean> {
  const result = await db.job.updateMany({
    where: { id: job.id, status: "running", leasedBy: job.leasedBy },
    data: {
      status: "queued",
      runAt: options.runAt,
      leasedBy: null,
      leaseUntil: null,
      lastError: options.error,
      ...(options.countAttempt === false ? { attempts: { decrement: 1 } } : {}),
    },
  });
  return result.count === 1;
}

/** The final state after the attempt budget (or a problem that retrying cannot fix). */
export async function failJob(
  db: Db,
  job: Pick<Job, "id" | "leasedBy">,
  reason: string,
  now = new Date(),
): Promise<boolean> {
  const result = await db.job.updateMany({
    where: { id: job.id, status: "running", leasedBy: job.leasedBy },
    data: { status: "failed", lastError: reason, finishedAt: now, leaseUntil: null },
  });
  return result.count === 1;
}

/** What a job's columns become when it is queued again now, with a fresh attempt budget. */
const requeued = (now: Date) => ({
  status: "queued",
  runAt: now,
  attempts: 0,
  lastError: null,
  leasedBy: null,
  leaseUntil: null,
  finishedAt: null,
});

/**
 * Queues one job again now with a fresh attempt budget, only from the status the caller read: a job leased
 * meanwhile (a retry, another worker) must not go back to queued while it runs, or two workers would run it.
 */
export async function requeueJob(db: Db, job: { id: string; status: string }, now = new Date()): Promise<boolean> {
  const result = await db.job.updateMany({ where: { id: job.id, status: job.status }, data: requeued(now) });
  return result.count === 1;
}

export type RequeueResult = "requeued" | "running" | "queued" | "none" | "lost";

/**
 * Queues the latest job of a record again now (a manual retry, a customer who connected, an order that got
 * imported). A running job is left alone; a queued one too with `unlessQueued`. "none": pruned long ago, nothing
 * to send it again from; "lost": its status changed between the read and the write.
 */
export async function requeueLatest(
  db: Db,
  shop: string,
  recordId: string,
  now = new Date(),
  options: { unlessQueued?: boolean } = {},
): Promise<RequeueResult> {
  const latest = await db.job.findFirst({ where: { shop, recordId }, orderBy: { seq: "desc" } });
  if (!latest) return "none";
  if (latest.status === "running") return "running";
  if (latest.status === "queued" && options.unlessQueued) return "queued";
  return (await requeueJob(db, latest, now)) ? "requeued" : "lost";
}

/**
 * Manual retry from the admin page: the latest job of a record is queued again now with a fresh attempt budget.
 * Only job rows change; the record shows its new state once the worker has run.
 */
export async function retryRecordJob(
  prisma: PrismaClient,
  shop: string,
  recordId: string,
  now = new Date(),
): Promise<boolean> {
  return (await requeueLatest(prisma, shop, recordId, now)) === "requeued";
}

/** Wakes jobs that wait on something that just happened (an order imported, a customer reconnected). */
export async function wakeJobs(db: Db, where: Prisma.JobWhereInput, now = new Date()): Promise<number> {
  const result = await db.job.updateMany({
    where: { ...where, status: "queued", runAt: { gt: now } },
    data: { runAt: now },
  });
  return result.count;
}
