// A SyncRecord's state transitions while its job holds the lease: settle (skipped/failed), wait, retry, give up,
// imported. Each moves the job (a write fenced by its lease) and, only when that worked, writes the record, in one
// transaction: a worker whose lease was taken over (it hung past it) must not overwrite what its successor recorded.
// Record writes are also fenced by the record's redaction count (SyncRecord.redactions, bumped by customers/redact):
// a job that read the record before a redaction must not write the customer back. The check is in the UPDATE's own
// WHERE clause, so a redaction committing at the same moment either comes after the write (and erases it) or before
// (and the write is refused). The attempts log's rows: ./attempt-log.server.ts.
// One file: every transition shares the lease fence and the redaction fence; split, each would repeat them.
import { randomUUID } from "node:crypto";
import { rawQuery, ts } from "../db/sql.server";
import { formatUtcTime } from "../lib/dates";
import { Prisma, type Job, type SyncRecord } from "@prisma/client";
import { completeJob, failJob, jobRef, rescheduleJob, type LeasedJob } from "./queue.server";
import { importFailures, imports } from "../lib/metrics.server";
import type { Resolved } from "./job-context.server";
import { because, type FailureFacts, type ReasonDetails, type SyncReasonCode } from "./reasons";
import type { SyncKind } from "./mapping.server";
import { queueFlowTriggerOnFailure } from "./flow-trigger.server";

export const IMPORTED = new Set(["imported", "updated"]);

/** A reason code with its details, or both fields already built (app/sync/reasons.ts): `reasonCode` and `reason`. */
export type Why =
  | SyncReasonCode
  | { code: SyncReasonCode; details: ReasonDetails }
  | { reasonCode: SyncReasonCode; reason: string; reasonDetails: ReasonDetails };
const fields = (why: Why) =>
  typeof why === "string" ? because(why) : "reasonCode" in why ? why : because(why.code, why.details);

/** imports_total for the job's next state; a failure also by its reason code (import_failures_total). */
function counted(job: Pick<Job, "kind">, outcome: "skipped" | "failed" | "waiting" | "retrying", reasonCode?: string) {
  imports.series(job.kind, outcome).inc();
  if (outcome === "failed") importFailures.series(job.kind, reasonCode ?? "unknown").inc();
}

/** A record write by a job: `redactions` is the count the job read (the write is refused when it changed). */
export interface RecordWrite {
  id: string;
  redactions: number;
  data: Prisma.SyncRecordUpdateManyMutationInput;
}

export async function transition(
  deps: Resolved,
  moveJob: (tx: Prisma.TransactionClient) => Promise<boolean>,
  record?: RecordWrite,
): Promise<boolean> {
  const moved = await deps.prisma.$transaction(async (tx) => {
    if (!(await moveJob(tx))) return false;
    if (!record) return true;
    const written = await tx.syncRecord.updateMany({
      where: { id: record.id, redactions: record.redactions },
      data: record.data,
    });
    if (written.count === 0) {
      // The customer was erased while this job ran: what the redaction wrote stands.
      deps.logger.info({ recordId: record.id }, "record redacted while its job ran; not written");
      return true;
    }
    // Becoming failed starts a failure episode: Shopify Flow hears of it once (app/sync/flow-trigger.server.ts).
    if (record.data.state === "failed") await queueFlowTriggerOnFailure(tx, record.id, deps.now());
    return true;
  });
  if (!moved) deps.logger.warn({ recordId: record?.id }, "lease lost; the new holder records the outcome");
  return moved;
}

/**
 * Every column of a SyncRecord, from the schema, its timestamps read as UTC instants (`rawQuery`: the same Dates
 * through the driver and through Prisma).
 */
const RECORD_FIELDS = Prisma.dmmf.datamodel.models
  .find((model) => model.name === "SyncRecord")!
  .fields.filter((field) => field.kind !== "object");
const RECORD_COLUMNS = Prisma.raw(
  RECORD_FIELDS.map((field) =>
    field.type === "DateTime" ? `"${field.name}" AT TIME ZONE 'UTC' AS "${field.name}"` : `"${field.name}"`,
  ).join(", "),
);

/**
 * A SyncRecord the lease read as JSON (`to_jsonb`, LeasedJob.recordRow): its timestamps come as text without a zone
 * (the columns hold UTC), read here as the same instants RECORD_COLUMNS gives.
 */
function recordFromJson(row: Record<string, unknown>): SyncRecord {
  const record: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS) {
    const value = row[field.name] ?? null;
    record[field.name] = field.type === "DateTime" && typeof value === "string" ? new Date(`${value}Z`) : value;
  }
  return record as unknown as SyncRecord;
}

/** The job's record: the one the intake created with it, or found or created by its Shopify id. */
export async function ensureRecord(
  deps: Resolved,
  job: Job,
  kind: SyncKind,
  externalId: string,
  orderId: string,
): Promise<SyncRecord> {
  // SQL throughout (docs/decisions/0002): this runs for every job. Reading the intake's record writes nothing; the
  // lease read it already (LeasedJob.recordRow) unless the job came another way.
  const leased = (job as LeasedJob).recordRow;
  if (job.recordId && leased) {
    const own = recordFromJson(leased);
    if (own.id === job.recordId && own.shop === job.shop && own.kind === kind && own.externalId === externalId)
      return own;
  }
  if (job.recordId && leased === undefined) {
    const [own] = await rawQuery<SyncRecord>(
      deps.prisma,
      Prisma.sql`SELECT ${RECORD_COLUMNS} FROM "SyncRecord" WHERE id = ${job.recordId} AND shop = ${job.shop} AND kind = ${kind} AND "externalId" = ${externalId}`,
    );
    if (own) return own;
  }
  // The no-op update makes RETURNING give the existing row too; the unique key makes a concurrent insert wait, not fail.
  const now = ts(deps.now());
  const [record] = await rawQuery<SyncRecord>(
    deps.prisma,
    Prisma.sql`
    INSERT INTO "SyncRecord" (id, shop, kind, "externalId", "orderId", "createdAt", "updatedAt")
    VALUES (${randomUUID()}, ${job.shop}, ${kind}, ${externalId}, ${orderId}, ${now}, ${now})
    ON CONFLICT (shop, kind, "externalId") DO UPDATE SET shop = EXCLUDED.shop
    RETURNING ${RECORD_COLUMNS}`,
  );
  if (job.recordId !== record.id)
    await deps.prisma.job.update({ where: { id: job.id }, data: { recordId: record.id } });
  return record;
}

/** Final for this content: the record shows why, the job is done (a later change or a retry runs it again). */
export async function settle(
  deps: Resolved,
  job: Job,
  record: SyncRecord,
  state: "skipped" | "failed",
  why: Why,
  newer: { sourceUpdatedAt?: Date } = {},
): Promise<boolean> {
  const reason = fields(why);
  const settled = await transition(
    deps,
    (tx) => (state === "failed" ? failJob(tx, job, reason.reason, deps.now()) : completeJob(tx, job, deps.now())),
    {
      id: record.id,
      redactions: record.redactions,
      data: {
        state,
        ...reason,
        attempts: job.attempts,
        lastAttemptAt: deps.now(),
        customerId: record.customerId,
        ...newer,
      },
    },
  );
  if (settled) {
    counted(job, state, reason.reasonCode);
    deps.logger.info({ ...jobRef(job), recordId: record.id, state, reasonCode: reason.reasonCode }, "record settled");
  }
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
  const moved = await transition(
    deps,
    async (tx) => {
      const runAt = new Date(deps.now().getTime() + delayMs);
      if (!(await rescheduleJob(tx, job, { runAt, error: reason.reason, countAttempt: false }))) return false;
      // The job's payload may name the customer (past orders): not written back over a redaction's empty one.
      if (payload !== undefined) {
        await tx.$executeRaw`
          UPDATE "Job" SET payload = ${JSON.stringify(payload)}::jsonb
          WHERE id = ${job.id} AND EXISTS (SELECT 1 FROM "SyncRecord" WHERE id = ${record.id} AND redactions = ${record.redactions}::int)`;
      }
      return true;
    },
    {
      id: record.id,
      redactions: record.redactions,
      data: { state: "waiting", ...reason, lastAttemptAt: deps.now(), customerId: record.customerId },
    },
  );
  if (moved) counted(job, "waiting");
}

/** A temporary failure: the job runs again at `runAt` (this attempt counted); the record says when. */
export async function retryLater(
  deps: Resolved,
  job: Job,
  record: SyncRecord,
  message: string,
  runAt: Date,
  failure?: FailureFacts,
) {
  const at = formatUtcTime(runAt);
  const reason = fields({
    code: "retrying",
    details: { detail: message, at, attempts: job.attempts, maxAttempts: job.maxAttempts, failure },
  });
  const moved = await transition(deps, (tx) => rescheduleJob(tx, job, { runAt, error: message }), {
    id: record.id,
    redactions: record.redactions,
    data: {
      state: IMPORTED.has(record.state) ? record.state : "pending",
      ...reason,
    },
  });
  if (moved) counted(job, "retrying");
}

/**
 * Final failure of the job and, when it has one, its record (retrying cannot fix it, or attempts ran out). A job
 * that has not read its record (a crash before) writes over no redaction either: the count is read here.
 */
export async function giveUp(
  deps: Resolved,
  job: Job,
  record: string | Pick<SyncRecord, "id" | "redactions"> | null,
  why: Why,
  jobError?: string,
) {
  const reason = fields(why);
  const current =
    typeof record === "string"
      ? await deps.prisma.syncRecord.findUnique({ where: { id: record }, select: { id: true, redactions: true } })
      : record;
  const moved = await transition(
    deps,
    (tx) => failJob(tx, job, jobError ?? reason.reason, deps.now()),
    current ? { id: current.id, redactions: current.redactions, data: { state: "failed", ...reason } } : undefined,
  );
  if (moved) counted(job, "failed", reason.reasonCode);
}

/**
 * A send the service did not accept: the record shows the attempt (what was sent, when, how many times) before the
 * failure is handled. Only while this worker holds the lease: a late failure must not overwrite what the worker
 * that took the job over has written.
 */
export async function recordFailedSend(
  deps: Resolved,
  job: Job,
  record: SyncRecord,
  contentHash: string,
): Promise<void> {
  const now = ts(deps.now());
  await deps.prisma.$executeRaw`
    UPDATE "SyncRecord" SET "contentHash" = ${contentHash}, attempts = ${job.attempts}::int, "lastAttemptAt" = ${now},
      "customerId" = ${record.customerId}::text, "updatedAt" = ${now}
    WHERE id = ${record.id} AND redactions = ${record.redactions}::int
      AND EXISTS (SELECT 1 FROM "Job" WHERE id = ${job.id} AND status = 'running' AND "leasedBy" = ${job.leasedBy})`;
}

export interface ImportedFacts {
  state: "imported" | "updated";
  /** meaningHash of the body the service accepted, and the hash of its exact bytes. */
  sentHash: string;
  contentHash: string;
  workspaceId: string;
  customerId: string | null;
  /** The record's redaction count when the job read it: changed since, the customer id is not written. */
  redactions: number;
  serviceId: string | null;
  serviceStatus: string;
  /** The job's attempts so far, shown on the record. */
  attempts: number;
  /** Shopify's updated_at of this content, when it is newer than the record's. */
  sourceUpdatedAt?: Date;
}

export interface ImportedOptions {
  /** The attempt's row (attemptInsert, ./attempt-log.server.ts): logged whether or not the lease still holds. */
  attempt: Prisma.Sql;
  /** An order: its shipments' jobs that wait for it are woken, and the shipment records asleep on it returned. */
  order?: { orderId: string; orderKey: string };
}

/** The statement recordImported runs (exported for the plan test, test/sync/outcome-scale.test.ts). */
export function importedStatement(
  job: Pick<Job, "id" | "shop" | "leasedBy">,
  recordId: string,
  facts: ImportedFacts,
  options: ImportedOptions,
  at: Date,
): Prisma.Sql {
  const now = ts(at);
  const { order } = options;
  // The order's shipments are found by (shop, order) only: "… IS TRUE" keeps the other conditions out of the index
  // conditions, or without fresh statistics (PGlite never has any; PostgreSQL after a bulk load) the planner walked
  // a shop's every record with no order name, or every shipment, or every queued job (a partial index on queued
  // jobs matched by the status alone), and an import's cost grew with the backlog (docs/performance.md).
  const wake = order
    ? Prisma.sql`, woken AS (
        UPDATE "Job" SET "runAt" = ${now}, "updatedAt" = ${now}
        WHERE shop = ${job.shop} AND "orderKey" = ${order.orderKey} AND (status = 'queued' AND kind = 'shipment' AND "runAt" > ${now}) IS TRUE
          AND EXISTS (SELECT 1 FROM recorded)
      ), named AS (
        -- shipments that arrived before their order had no order name to show or to be searched by: they get it now
        UPDATE "SyncRecord" s SET "orderName" = o."orderName"
        FROM "SyncRecord" o
        WHERE o.id = ${recordId} AND o."orderName" IS NOT NULL
          AND s.shop = ${job.shop} AND s."orderId" = ${order.orderId} AND (s.kind = 'shipment' AND s."orderName" IS NULL) IS TRUE
          AND EXISTS (SELECT 1 FROM recorded)
      )`
    : Prisma.empty;
  const sleeping = order
    ? Prisma.sql`ARRAY(SELECT id FROM "SyncRecord" WHERE shop = ${job.shop} AND "orderId" = ${order.orderId}
        AND (kind = 'shipment' AND (state = 'waiting' OR (state = 'skipped' AND "reasonCode" = 'order_not_imported'))) IS TRUE)`
    : Prisma.sql`ARRAY[]::text[]`;
  return Prisma.sql`
    WITH moved AS (
      UPDATE "Job" SET status = 'done', "finishedAt" = ${now}, "leaseUntil" = NULL, "lastError" = NULL, "updatedAt" = ${now}
      WHERE id = ${job.id} AND status = 'running' AND "leasedBy" = ${job.leasedBy}
      RETURNING id
    ), attempt AS (${options.attempt}
    ), recorded AS (
      UPDATE "SyncRecord" SET state = ${facts.state}, "sentHash" = ${facts.sentHash}, "contentHash" = ${facts.contentHash},
        "workspaceId" = ${facts.workspaceId}, "serviceId" = ${facts.serviceId}::text,
        -- The service has it, so the record says so; the customer is written only if no redaction came in between.
        "customerId" = CASE WHEN redactions = ${facts.redactions}::int THEN ${facts.customerId}::text END,
        "serviceStatus" = ${facts.serviceStatus}, reason = NULL, "reasonCode" = NULL, "flowNotifiedAt" = NULL, attempts = ${facts.attempts}::int,
        "sourceUpdatedAt" = COALESCE(${facts.sourceUpdatedAt ? ts(facts.sourceUpdatedAt) : null}, "sourceUpdatedAt"),
        "lastAttemptAt" = ${now}, "importedAt" = ${now}, "updatedAt" = ${now}
      WHERE id = ${recordId} AND EXISTS (SELECT 1 FROM moved)
      RETURNING id
    )${wake}
    SELECT (SELECT count(*) FROM recorded)::int AS recorded, ${sleeping} AS sleeping`;
}

/**
 * The service has the content: the busiest write of the sync, one SQL statement instead of four (docs/decisions/0002).
 * The job moves to done only while this worker still holds its lease, and only then are the record and the order's
 * waiting shipments written; the attempt is logged either way. Returns whether it was recorded, and for an order the
 * shipment records that slept on it (skipped for it, or waiting), for the caller to queue again.
 */
export async function recordImported(
  deps: Resolved,
  job: Job,
  recordId: string,
  facts: ImportedFacts,
  options: ImportedOptions,
): Promise<{ recorded: boolean; sleepingShipments: string[] }> {
  const [row] = await rawQuery<{ recorded: number; sleeping: string[] }>(
    deps.prisma,
    importedStatement(job, recordId, facts, options, deps.now()),
  );
  const recorded = row.recorded === 1;
  if (!recorded) deps.logger.warn({ recordId }, "lease lost; the new holder records the outcome");
  // What the statement saw of the shipments is from before it ran: only a recorded import may wake them.
  return { recorded, sleepingShipments: recorded ? row.sleeping : [] };
}
