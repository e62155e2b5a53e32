// One record of the sync log in full: the Shopify order it comes from (with a link into the Shopify admin), the
// request built for the service (rebuilt from the stored Shopify payload with the same mapper: no token, no
// signature, nothing beyond what the service receives), every attempt, the next try and the workspace.
import { adminOrderLink } from "../lib/admin-links";
import type { PrismaClient } from "@prisma/client";
import { mapFulfillment, mapOrder, type ShopifyFulfillment, type ShopifyOrder } from "../sync/mapping.server";
import { RETRYABLE_STATES } from "../sync/states";
import { customerLabel, customerNames } from "./log.server";

export interface AttemptView {
  at: string;
  ok: boolean;
  httpStatus: number | null;
  errorCode: string | null;
  /** Our own message of the time (English, with the service's words inline), if any: what English shows. */
  message: string | null;
  /** The service's own message, quoted as its words, if it gave one. */
  serviceMessage: string | null;
  /** Answered from the service's idempotency store. */
  replayed: boolean;
  /** The kind of outcome: the page words it (log.outcome.*) when there is no message. */
  outcome: string;
}

export interface RecordDetail {
  type: "record";
  id: string;
  kind: string;
  orderName: string | null;
  orderId: string;
  externalId: string;
  adminOrderUrl: string;
  customerId: string | null;
  customer: string;
  state: string;
  resolvedAt: string | null;
  reason: string | null;
  reasonCode: string | null;
  reasonDetails: unknown;
  attemptCount: number;
  workspaceId: string | null;
  serviceId: string | null;
  createdAt: string;
  importedAt: string | null;
  /** JSON of the request body, or why there is none (a code the page words, and the mapper's reason). */
  request:
    | { json: string }
    | {
        missing: "cleared" | "gone" | "unmappable";
        /** English words for the mapper's refusal, and the same as code and facts (worded by the page). */
        detail?: string;
        reasonCode?: string;
        reasonDetails?: unknown;
      };
  attempts: AttemptView[];
  job: { status: string; attempts: number; maxAttempts: number; nextTryAt: string | null } | null;
  canRetry: boolean;
  canResolve: boolean;
  /** Something is queued or running: the page refreshes itself. */
  busy: boolean;
}

export interface HandoffDetail {
  type: "handoff";
  id: string;
  externalCartId: string;
  customerId: string | null;
  customer: string;
  state: string;
  reason: string | null;
  reasonCode: string | null;
  lineCount: number;
  totalMinor: number;
  currency: string;
  createdAt: string;
  expiresAt: string | null;
  attempts: number;
}

export const MAX_ATTEMPTS_SHOWN = 100;

/** The order in the merchant's own Shopify admin (app/lib/admin-links.ts); `shop` is kept for callers. */
export function adminOrderUrl(_shop: string, orderId: string): string {
  return adminOrderLink(orderId);
}

async function requestOf(
  prisma: PrismaClient,
  shop: string,
  recordId: string,
  kind: string,
): Promise<RecordDetail["request"]> {
  const job = await prisma.job.findFirst({
    where: { shop, recordId },
    orderBy: { seq: "desc" },
    select: { deliveryId: true, payload: true },
  });
  if (!job) return { missing: "cleared" };
  let payload: unknown = (job.payload as { data?: unknown } | null)?.data;
  if (job.deliveryId) {
    const delivery = await prisma.webhookDelivery.findFirst({
      where: { id: job.deliveryId, shop },
      select: { payload: true },
    });
    payload = delivery?.payload ?? payload;
  }
  if (!payload) return { missing: "gone" };
  const mapped = kind === "order" ? mapOrder(payload as ShopifyOrder) : mapFulfillment(payload as ShopifyFulfillment);
  return mapped.ok
    ? { json: JSON.stringify(mapped.request, null, 2) }
    : {
        missing: "unmappable",
        detail: mapped.reason,
        reasonCode: mapped.reasonCode,
        reasonDetails: mapped.reasonDetails,
      };
}

const attemptDetails = (value: unknown): { serviceMessage?: string; replayed?: boolean } =>
  value && typeof value === "object" && !Array.isArray(value) ? value : {};

export async function loadLogEntry(
  prisma: PrismaClient,
  shop: string,
  id: string,
): Promise<RecordDetail | HandoffDetail | null> {
  if (!id || id.length > 64) return null;
  const record = await prisma.syncRecord.findFirst({ where: { id, shop } });
  if (!record) {
    const handoff = await prisma.cartHandoff.findFirst({ where: { id, shop } });
    if (!handoff) return null;
    const names = await customerNames(prisma, shop, [handoff.customerId]);
    return {
      type: "handoff",
      id: handoff.id,
      externalCartId: handoff.externalCartId,
      customerId: handoff.customerId ?? null,
      customer: customerLabel(handoff.customerId, names, ""),
      state: handoff.state,
      reason: handoff.reason,
      reasonCode: handoff.reasonCode,
      lineCount: handoff.lineCount,
      totalMinor: Number(handoff.totalMinor),
      currency: handoff.currency,
      createdAt: handoff.createdAt.toISOString(),
      expiresAt: handoff.expiresAt?.toISOString() ?? null,
      attempts: handoff.attempts,
    };
  }
  const [attempts, job, names, request] = await Promise.all([
    prisma.syncAttempt.findMany({ where: { shop, recordId: id }, orderBy: { at: "desc" }, take: MAX_ATTEMPTS_SHOWN }),
    prisma.job.findFirst({
      where: { shop, recordId: id },
      orderBy: { seq: "desc" },
      select: { status: true, attempts: true, maxAttempts: true, runAt: true },
    }),
    customerNames(prisma, shop, [record.customerId]),
    requestOf(prisma, shop, id, record.kind),
  ]);
  return {
    type: "record",
    id: record.id,
    kind: record.kind,
    orderName: record.orderName,
    orderId: record.orderId,
    externalId: record.externalId,
    adminOrderUrl: adminOrderUrl(shop, record.orderId),
    customerId: record.customerId,
    customer: customerLabel(record.customerId, names, ""),
    state: record.state,
    resolvedAt: record.resolvedAt?.toISOString() ?? null,
    reason: record.reason,
    reasonCode: record.reasonCode,
    reasonDetails: record.reasonDetails,
    attemptCount: record.attempts,
    workspaceId: record.workspaceId,
    serviceId: record.serviceId,
    createdAt: record.createdAt.toISOString(),
    importedAt: record.importedAt?.toISOString() ?? null,
    request,
    attempts: attempts.map((a) => ({
      at: a.at.toISOString(),
      ok: a.ok,
      httpStatus: a.httpStatus,
      errorCode: a.errorCode,
      message: a.message,
      serviceMessage: attemptDetails(a.details).serviceMessage ?? null,
      replayed: attemptDetails(a.details).replayed === true,
      outcome: a.outcome,
    })),
    job: job
      ? {
          status: job.status,
          attempts: job.attempts,
          maxAttempts: job.maxAttempts,
          nextTryAt: job.status === "queued" ? job.runAt.toISOString() : null,
        }
      : null,
    canRetry: RETRYABLE_STATES.has(record.state),
    canResolve: RETRYABLE_STATES.has(record.state) && !record.resolvedAt,
    busy: job?.status === "queued" || job?.status === "running",
  };
}
