// A SyncRecord's state transitions while its job holds the lease: settle (skipped/failed), wait, retry, give up,
// imported. Each moves the job (a write fenced by its lease) and, only when that worked, writes the record, in one
// transaction: a worker whose lease was taken over (it hung past it) must not overwrite what its successor recorded.
import { formatUtcTime } from "../lib/dates";
import type { Job, Prisma, SyncRecord } from "@prisma/client";
import { completeJob, failJob, rescheduleJob } from "./queue.server";
import type { Resolved } from "./job-context.server";
import { because, NO_REASON, type ReasonDetails, type SyncReasonCode } from "./reasons";
import type { SyncKind } from "./idempotency.server";

export const IMPORTED = new Set(["imported", "updated"]);

/** A reason code with its details, or both fields already built (app/sync/reasons.ts): `reasonCode` and `reason`. */
export type Why = SyncReasonCode | { code: SyncReasonCode; details: ReasonDetails } | { reasonCode: SyncReasonCode; reason: string };
const fields = (why: Why) =>
  typeof why === "string" ? because(why) : "reasonCode" in why ? why : because(why.code, why.details);

export async function transition(
  deps: Resolved,
  moveJob: (tx: Prisma.TransactionClient) => Promise<boolean>,
  record?: { id: string; data: Prisma.SyncRecordUpdateInput },
): Promise<boolean> {
  const moved = await deps.prisma.$transaction(async (tx) => {
    if (!(await moveJob(tx))) return false;
    if (record) await tx.syncRecord.update({ where: { id: record.id }, data: record.data });
    return true;
  });
  if (!moved) deps.logger.warn({ recordId: record?.id }, "lease lost; the new holder records the outcome");
  return moved;
}

export async function ensureRecord(deps: Resolved, job: Job, kind: SyncKind, externalId: string, orderId: string): Promise<SyncRecord> {
  const record = await deps.prisma.syncRecord.upsert({
    where: { shop_kind_externalId: { shop: job.shop, kind, externalId } },
    create: { shop: job.shop, kind, externalId, orderId },
    update: {},
  });
  if (job.recordId !== record.id) await deps.prisma.job.update({ where: { id: job.id }, data: { recordId: record.id } });
  return record;
}

/** Final for this content: the record shows why, the job is done (a later change or a retry runs it again). */
export async function settle(
  deps: Resolved,
  job: Job,
  record: SyncRecord,
  state: "skipped" | "failed",
  why: Why,
  newer: Partial<SyncRecord> = {},
): Promise<boolean> {
  const reason = fields(why);
  const settled = await transition(
    deps,
    (tx) => (state === "failed" ? failJob(tx, job, reason.reason, deps.now()) : completeJob(tx, job, deps.now())),
    { id: record.id, data: { state, ...reason, attempts: job.attempts, lastAttemptAt: deps.now(), customerId: record.customerId, ...newer } },
  );
  if (settled) deps.logger.info({ jobId: job.id, recordId: record.id, state, reasonCode: reason.reasonCode }, "record settled");
  return settled;
}

/** Waits for something outside our control (a person, its order) without using up the attempt budget. */
export async function wait(
  deps: Resolved,
  job: Job,
  record: SyncRecord,
  why: Why,
  delayMs: number,
  payload?: Prisma.InputJsonValue,
) {
  const reason = fields(why);
  await transition(
    deps,
    async (tx) => {
      const runAt = new Date(deps.now().getTime() + delayMs);
      if (!(await rescheduleJob(tx, job, { runAt, error: reason.reason, countAttempt: false }))) return false;
      if (payload !== undefined) await tx.job.update({ where: { id: job.id }, data: { payload } });
      return true;
    },
    { id: record.id, data: { state: "waiting", ...reason, lastAttemptAt: deps.now(), customerId: record.customerId } },
  );
}

/** A temporary failure: the job runs again at `runAt` (this attempt counted); the record says when. */
export async function retryLater(deps: Resolved, job: Job, record: SyncRecord, message: string, runAt: Date) {
  const at = formatUtcTime(runAt);
  await transition(deps, (tx) => rescheduleJob(tx, job, { runAt, error: message }), {
    id: record.id,
    data: {
      state: IMPORTED.has(record.state) ? record.state : "pending",
      ...because("retrying", { detail: message, at, attempts: job.attempts, maxAttempts: job.maxAttempts }),
    },
  });
}

/** Final failure of the job and, when it has one, its record (retrying cannot fix it, or attempts ran out). */
export async function giveUp(deps: Resolved, job: Job, recordId: string | null, why: Why, jobError?: string) {
  const reason = fields(why);
  await transition(
    deps,
    (tx) => failJob(tx, job, jobError ?? reason.reason, deps.now()),
    recordId ? { id: recordId, data: { state: "failed", ...reason } } : undefined,
  );
}

/** The service has the content: job done and record imported/updated together, under the lease. */
export async function recordImported(
  deps: Resolved,
  job: Job,
  recordId: string,
  data: Omit<Prisma.SyncRecordUpdateInput, "reason" | "reasonCode">,
): Promise<boolean> {
  const recorded = await transition(deps, (tx) => completeJob(tx, job, deps.now()), {
    id: recordId,
    data: { ...data, ...NO_REASON, importedAt: deps.now() },
  });
  return recorded;
}
