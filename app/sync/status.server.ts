// What the "Sync status" admin page shows and does. Plain functions over Prisma, scoped by shop; no Remix.
// Actions change job rows (retry) or the shop's pause flag, never import records: the worker owns those.
import { formatUtc } from "../lib/dates";
import type { PrismaClient } from "@prisma/client";
import { retryRecordJob } from "./queue.server";
import { notifyWorkers } from "./signal.server";

import { RETRYABLE_STATES, SYNC_STATES, type SyncState } from "./states";

export { RETRYABLE_STATES, SYNC_STATES, type SyncState };
export const PAGE_SIZE = 25;

export interface ImportRow {
  id: string;
  kind: string;
  externalId: string;
  orderId: string;
  state: string;
  reason: string | null;
  attempts: number;
  lastAttemptAt: string | null;
  importedAt: string | null;
  workspaceId: string | null;
  canRetry: boolean;
}

export interface BackfillView {
  id: string;
  customerId: string;
  /** The customer's name or email when their grant carries one. */
  customer: string;
  days: number;
  status: string;
  total: number;
  queued: number;
  /** 0 to 100. */
  percent: number;
  error: string | null;
  createdAt: string;
}

export interface SyncStatusView {
  shop: string;
  paused: boolean;
  state: SyncState | null;
  page: number;
  pageCount: number;
  total: number;
  counts: Record<SyncState, number>;
  rows: ImportRow[];
  backfills: BackfillView[];
}

const formatTime = (date: Date | null) => (date ? formatUtc(date) : null);

function parseStateFilter(value: string | null): SyncState | null {
  return value && (SYNC_STATES as readonly string[]).includes(value) ? (value as SyncState) : null;
}

export async function loadSyncStatus(
  prisma: PrismaClient,
  shop: string,
  query: { state?: string | null; page?: number | string | null } = {},
): Promise<SyncStatusView> {
  const state = parseStateFilter(query.state ?? null);
  const where = { shop, ...(state ? { state } : {}) };
  const [settings, grouped, backfills] = await Promise.all([
    prisma.shopSettings.findUnique({ where: { shop }, select: { syncPaused: true } }),
    prisma.syncRecord.groupBy({ by: ["state"], where: { shop }, _count: { _all: true } }),
    prisma.backfill.findMany({ where: { shop }, orderBy: { createdAt: "desc" }, take: 5 }),
  ]);
  const counts = Object.fromEntries(SYNC_STATES.map((s) => [s, 0])) as Record<SyncState, number>;
  for (const g of grouped) if (g.state in counts) counts[g.state as SyncState] = g._count._all;
  const total = state ? counts[state] : Object.values(counts).reduce((a, b) => a + b, 0);
  const pageCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const page = Math.min(Math.max(1, Number(query.page) || 1), pageCount);
  const grants = backfills.length
    ? await prisma.customerGrant.findMany({
        where: { shop, customerId: { in: [...new Set(backfills.map((b) => b.customerId))] } },
        select: { customerId: true, customerName: true, customerEmail: true },
      })
    : [];
  const nameOf = new Map(grants.map((g) => [g.customerId, g.customerName || g.customerEmail || null]));
  const records = await prisma.syncRecord.findMany({
    where,
    orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
    skip: (page - 1) * PAGE_SIZE,
    take: PAGE_SIZE,
  });
  return {
    shop,
    paused: settings?.syncPaused ?? false,
    state,
    page,
    pageCount,
    total,
    counts,
    rows: records.map((r) => ({
      id: r.id,
      kind: r.kind,
      externalId: r.externalId,
      orderId: r.orderId,
      state: r.state,
      reason: r.reason,
      attempts: r.attempts,
      lastAttemptAt: formatTime(r.lastAttemptAt),
      importedAt: formatTime(r.importedAt),
      workspaceId: r.workspaceId,
      canRetry: RETRYABLE_STATES.has(r.state),
    })),
    backfills: backfills.map((b) => ({
      id: b.id,
      customerId: b.customerId,
      customer: nameOf.get(b.customerId) ?? `Customer ${b.customerId}`,
      days: b.days,
      status: b.status,
      total: b.total,
      queued: b.queued,
      percent: b.status === "done" ? 100 : b.total > 0 ? Math.min(100, Math.round((100 * b.queued) / b.total)) : 0,
      error: b.error,
      createdAt: formatTime(b.createdAt)!,
    })),
  };
}

export type SyncActionResult = { ok: true; message: string } | { ok: false; message: string };

/** Pause or resume the shop's sync: paused work stays queued, nothing is dropped. */
export async function setSyncPaused(prisma: PrismaClient, shop: string, paused: boolean): Promise<SyncActionResult> {
  await prisma.shopSettings.upsert({ where: { shop }, create: { shop, syncPaused: paused }, update: { syncPaused: paused } });
  if (!paused) notifyWorkers();
  return { ok: true, message: paused ? "Sync paused. New orders are recorded and wait." : "Sync resumed." };
}

/** Retry one failed or skipped import: its latest job is queued again now with a fresh attempt budget. */
export async function retryImport(prisma: PrismaClient, shop: string, recordId: string, now = new Date()): Promise<SyncActionResult> {
  const record = await prisma.syncRecord.findFirst({ where: { id: recordId, shop }, select: { state: true } });
  if (!record) return { ok: false, message: "That import was not found." };
  if (!RETRYABLE_STATES.has(record.state)) return { ok: false, message: "Only failed or skipped imports can be retried." };
  if (!(await retryRecordJob(prisma, shop, recordId, now))) return { ok: false, message: "That import is running right now." };
  notifyWorkers();
  return { ok: true, message: "Queued again. The state updates once it has run." };
}
