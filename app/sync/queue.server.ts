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
import type { Job, Prisma, PrismaClient } from "@prisma/client";
import { shopHeldSql } from "../db/shop-settings.server";
import { ts, type Db } from "../db/sql.server";
import { because } from "./reasons";

export type JobKind = "order" | "shipment" | "backfill";

export const DEFAULT_LEASE_MS = 5 * 60_000;
const DEFAULT_MAX_ATTEMPTS = 12;

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
    if (!job.recordId) continue;
    await prisma.syncRecord.update({
      where: { id: job.recordId },
      data: { state: "failed", ...because("lease_expired", { attempts: job.attempts }) },
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
 * Expired leases are reclaimed first (`reclaimExpired`). Then one statement (its own transaction) walks queued
 * jobs in `seq` order (index on status, seq), locking candidates `FOR UPDATE SKIP LOCKED`, keeps the first per
 * order and marks them running. Two workers leasing at once cannot take two jobs of one order: a job is only a
 * candidate when no earlier job of its order is queued or running in the statement's snapshot, and the rows the
 * other worker is taking are locked (skipped) or, once committed, re-checked as running. The one allowed overlap
 * is an order import beside a shipment of the same order that came first; that shipment then waits for its
 * order, which is what it would do anyway.
 *
 * Fair between shops: the shops with due work are taken with the fewest jobs running first (then the oldest
 * work), and the batch alternates between them, so a shop's backfill of thousands of orders never holds back
 * another shop's new order for more than one turn.
 */
export async function leaseJobs(prisma: PrismaClient, options: LeaseOptions): Promise<Job[]> {
  const now = options.now ?? new Date();
  const limit = options.limit ?? 1;
  const leaseUntil = new Date(now.getTime() + (options.leaseMs ?? DEFAULT_LEASE_MS));
  await reclaimExpired(prisma, now);
  const leased = await prisma.$queryRaw<Job[]>`
    WITH shops AS (
      SELECT q.shop, row_number() OVER (
        ORDER BY (SELECT count(*) FROM "Job" r WHERE r.shop = q.shop AND r.status = 'running'), min(q.seq)) AS "shopRank"
      FROM "Job" q
      WHERE q.status = 'queued' AND q."runAt" <= ${ts(now)}
        AND NOT ${shopHeldSql("q")}
      GROUP BY q.shop
      ORDER BY "shopRank"
      LIMIT ${limit + SPARE_SHOPS}
    ), candidates AS (
      SELECT c.*, s."shopRank" FROM shops s CROSS JOIN LATERAL (
        SELECT j.id, j.shop, j."orderKey", j.seq FROM "Job" j
        WHERE j.shop = s.shop AND j.status = 'queued' AND j."runAt" <= ${ts(now)}
          AND NOT ${shopHeldSql("j")}
          AND (j."orderKey" IS NULL OR NOT EXISTS (
            SELECT 1 FROM "Job" p
            WHERE p.shop = j.shop AND p."orderKey" = j."orderKey" AND p.id <> j.id
              AND (p.status = 'running'
                OR (p.seq < j.seq AND p.status = 'queued' AND NOT (p.kind = 'shipment' AND j.kind = 'order')))))
        ORDER BY j.seq
        LIMIT ${limit * 2}
        FOR UPDATE OF j SKIP LOCKED
      ) c
    ), firsts AS (
      SELECT DISTINCT ON (COALESCE("orderKey", id)) id, shop, seq, "shopRank" FROM candidates ORDER BY COALESCE("orderKey", id), seq
    ), chosen AS (
      SELECT id, seq FROM (
        SELECT id, seq, "shopRank", row_number() OVER (PARTITION BY shop ORDER BY seq) AS turn FROM firsts
      ) ranked
      ORDER BY turn, "shopRank", seq
      LIMIT ${limit}
    )
    UPDATE "Job" SET status = 'running', "leasedBy" = ${options.workerId}, "leaseUntil" = ${ts(leaseUntil)},
      attempts = attempts + 1, "updatedAt" = ${ts(now)}
    FROM chosen WHERE "Job".id = chosen.id
    RETURNING "Job".*`;
  return leased.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
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

export async function rescheduleJob(db: Db, job: Pick<Job, "id" | "leasedBy">, options: RescheduleOptions): Promise<boolean> {
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
export async function failJob(db: Db, job: Pick<Job, "id" | "leasedBy">, reason: string, now = new Date()): Promise<boolean> {
  const result = await db.job.updateMany({
    where: { id: job.id, status: "running", leasedBy: job.leasedBy },
    data: { status: "failed", lastError: reason, finishedAt: now, leaseUntil: null },
  });
  return result.count === 1;
}

/**
 * Exponential backoff with jitter: 2 s, 4 s, 8 s … capped at 15 min, never sooner than the service's Retry-After.
 * `attempt` is the attempt that just failed (1-based).
 */
export function backoffMs(attempt: number, retryAfterMs?: number, random: () => number = Math.random, base = 2_000, cap = 15 * 60_000): number {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  const delay = Math.round(ceiling / 2 + random() * (ceiling / 2));
  return Math.max(delay, retryAfterMs ?? 0);
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
export async function retryRecordJob(prisma: PrismaClient, shop: string, recordId: string, now = new Date()): Promise<boolean> {
  return (await requeueLatest(prisma, shop, recordId, now)) === "requeued";
}

/** Wakes jobs that wait on something that just happened (an order imported, a customer reconnected). */
export async function wakeJobs(db: Db, where: Prisma.JobWhereInput, now = new Date()): Promise<number> {
  const result = await db.job.updateMany({ where: { ...where, status: "queued", runAt: { gt: now } }, data: { runAt: now } });
  return result.count;
}
