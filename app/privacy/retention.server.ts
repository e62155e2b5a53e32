// Retention: what the app stores for a while and then lets go of, per shop (ShopSettings.retentionDays, default 90,
// set on the Settings page). Run by every worker in small batches (housekeeping.server.ts), so it never holds many
// locks at once. After the period:
// - stored webhook payloads and job payloads are deleted; records that did not reach the service (failed, skipped,
//   waiting, pending) keep their state and reason, lose their payload, and their reason says so; their waiting job
//   is cancelled (there is nothing left to send);
// - finished jobs (the attempt log: attempts, last error) are deleted, except the latest job of a record that was
//   not imported (the merchant's retry button uses it);
// - deliveries no job points at, the log of sends to the service (SyncAttempt), handled data requests and old cart
//   handoffs are deleted;
// - webhook receipts a shop/redact kept (ids only) are deleted when they expire (their receipt time + the period).
// The sync records themselves (ids, states, times) stay: they are the merchant's proof of what was sent.
import { Prisma, type PrismaClient } from "@prisma/client";
import { readSections, retentionDaysSql, writeSection } from "../db/shop-settings.server";
import { ts } from "../db/sql.server";

export const DEFAULT_RETENTION_DAYS = 90;
export const MIN_RETENTION_DAYS = 7;
export const MAX_RETENTION_DAYS = 365;
export const RETENTION_NOTICE = "Its Shopify data was deleted after the retention period, so it can no longer be sent.";

export interface PruneReport {
  payloadsCleared: number;
  jobsDeleted: number;
  deliveriesDeleted: number;
  dataRequestsDeleted: number;
  handoffsDeleted: number;
  attemptsDeleted: number;
  receiptsDeleted: number;
}

/** `alias.column` is older than its shop's retention period at `now`. */
function expired(now: Date, alias: string, column: string) {
  const a = Prisma.raw(alias);
  return Prisma.sql`${a}.${Prisma.raw(`"${column}"`)} < ${ts(now)} - make_interval(days => ${retentionDaysSql(alias, DEFAULT_RETENTION_DAYS)})`;
}

/** Repeats one batched statement until it touches fewer rows than a batch, or `rounds` times. */
async function batched(rounds: number, batch: number, step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < rounds; i++) {
    const n = await step();
    total += n;
    if (n < batch) break;
  }
  return total;
}

/** Records not at the service whose content is past the period: payloads cleared, waiting job cancelled, notice. */
async function clearExpiredPayloads(prisma: PrismaClient, now: Date, batch: number): Promise<number> {
  const jobs = await prisma.$queryRaw<{ id: string; deliveryId: string | null; recordId: string }[]>`
    SELECT j.id, j."deliveryId", j."recordId" FROM "Job" j
    JOIN "SyncRecord" r ON r.id = j."recordId"
    LEFT JOIN "WebhookDelivery" d ON d.id = j."deliveryId"
    WHERE r.state NOT IN ('imported', 'updated') AND j.status <> 'running'
      AND (j.payload <> '{}'::jsonb OR d.payload <> '{}'::jsonb)
      AND ${expired(now, "j", "createdAt")}
    LIMIT ${batch}`;
  if (jobs.length === 0) return 0;
  const ids = jobs.map((j) => j.id);
  const deliveryIds = jobs.flatMap((j) => (j.deliveryId ? [j.deliveryId] : []));
  const recordIds = [...new Set(jobs.map((j) => j.recordId))];
  await prisma.$transaction([
    prisma.webhookDelivery.updateMany({ where: { id: { in: deliveryIds } }, data: { payload: {} } }),
    prisma.job.updateMany({
      where: { id: { in: ids }, status: "queued" },
      data: { status: "cancelled", finishedAt: now, lastError: RETENTION_NOTICE },
    }),
    prisma.job.updateMany({ where: { id: { in: ids }, status: { not: "running" } }, data: { payload: {} } }),
    prisma.$executeRaw`
      UPDATE "SyncRecord" SET reason = CASE WHEN reason IS NULL OR reason = '' THEN ${RETENTION_NOTICE}
        ELSE reason || ' ' || ${RETENTION_NOTICE} END
      WHERE id IN (${Prisma.join(recordIds)}) AND (reason IS NULL OR position(${RETENTION_NOTICE} in reason) = 0)`,
  ]);
  return jobs.length;
}

/** Prunes one round of everything past each shop's retention period (a few batches of each kind). */
export async function pruneExpired(
  prisma: PrismaClient,
  options: { now?: Date; batch?: number; rounds?: number } = {},
): Promise<PruneReport> {
  const now = options.now ?? new Date();
  const batch = options.batch ?? 500;
  const rounds = options.rounds ?? 10;
  const payloadsCleared = await batched(rounds, batch, () => clearExpiredPayloads(prisma, now, batch));
  const jobsDeleted = await batched(
    rounds,
    batch,
    () => prisma.$executeRaw`
    DELETE FROM "Job" WHERE id IN (
      SELECT j.id FROM "Job" j
      LEFT JOIN "SyncRecord" r ON r.id = j."recordId"
      WHERE j.status IN ('done', 'failed', 'cancelled') AND ${expired(now, "j", "finishedAt")}
        AND (r.id IS NULL OR r.state IN ('imported', 'updated')
          OR EXISTS (SELECT 1 FROM "Job" later WHERE later."recordId" = j."recordId" AND later.seq > j.seq))
      LIMIT ${batch})`,
  );
  const deliveriesDeleted = await batched(
    rounds,
    batch,
    () => prisma.$executeRaw`
    DELETE FROM "WebhookDelivery" WHERE id IN (
      SELECT d.id FROM "WebhookDelivery" d
      WHERE ${expired(now, "d", "receivedAt")} AND NOT EXISTS (SELECT 1 FROM "Job" j WHERE j."deliveryId" = d.id)
      LIMIT ${batch})`,
  );
  const dataRequestsDeleted = await batched(
    rounds,
    batch,
    () => prisma.$executeRaw`
    DELETE FROM "DataRequest" WHERE id IN (
      SELECT q.id FROM "DataRequest" q WHERE q."handledAt" IS NOT NULL AND ${expired(now, "q", "handledAt")} LIMIT ${batch})`,
  );
  const handoffsDeleted = await batched(
    rounds,
    batch,
    () => prisma.$executeRaw`
    DELETE FROM "CartHandoff" WHERE id IN (
      SELECT h.id FROM "CartHandoff" h WHERE ${expired(now, "h", "createdAt")} LIMIT ${batch})`,
  );
  const attemptsDeleted = await batched(
    rounds,
    batch,
    () => prisma.$executeRaw`
    DELETE FROM "SyncAttempt" WHERE id IN (
      SELECT a.id FROM "SyncAttempt" a WHERE ${expired(now, "a", "at")} LIMIT ${batch})`,
  );
  const receiptsDeleted = await batched(
    rounds,
    batch,
    () => prisma.$executeRaw`
    DELETE FROM "WebhookReceipt" WHERE key IN (
      SELECT key FROM "WebhookReceipt" WHERE "expiresAt" < ${ts(now)} LIMIT ${batch})`,
  );
  return {
    payloadsCleared,
    jobsDeleted,
    deliveriesDeleted,
    dataRequestsDeleted,
    handoffsDeleted,
    attemptsDeleted,
    receiptsDeleted,
  };
}

export type RetentionResult = { ok: true; days: number; message: string } | { ok: false; message: string };

export async function getRetentionDays(prisma: PrismaClient, shop: string): Promise<number> {
  const row = await readSections(prisma, shop, "retention");
  return row?.retentionDays ?? DEFAULT_RETENTION_DAYS;
}

/** The Settings page's retention field: whole days within the bounds, or a message saying what is allowed. */
export async function saveRetentionDays(prisma: PrismaClient, shop: string, input: unknown): Promise<RetentionResult> {
  const text = typeof input === "string" ? input.trim() : "";
  const days = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(days >= MIN_RETENTION_DAYS && days <= MAX_RETENTION_DAYS)) {
    return {
      ok: false,
      message: `Retention must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}.`,
    };
  }
  await writeSection(prisma, shop, "retention", { retentionDays: days });
  return { ok: true, days, message: `Stored Shopify data is now kept for ${days} days.` };
}
