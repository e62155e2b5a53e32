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
  explanation: string;
}

export interface RecordDetail {
  type: "record";
  id: string;
  kind: string;
  title: string;
  orderId: string;
  externalId: string;
  adminOrderUrl: string;
  customer: string;
  state: string;
  resolvedAt: string | null;
  reason: string | null;
  workspaceId: string | null;
  serviceId: string | null;
  createdAt: string;
  importedAt: string | null;
  /** JSON of the request body, or why there is none. */
  request: { json: string } | { missing: string };
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
  title: string;
  customer: string;
  state: string;
  reason: string | null;
  lineCount: number;
  total: string;
  createdAt: string;
  expiresAt: string | null;
  attempts: number;
}

export const MAX_ATTEMPTS_SHOWN = 100;

/** The order in the merchant's own Shopify admin (app/lib/admin-links.ts); `shop` is kept for callers. */
export function adminOrderUrl(_shop: string, orderId: string): string {
  return adminOrderLink(orderId);
}

const EXPLAIN: Record<string, string> = {
  success: "Imported.",
  rate_limited: "The service asked us to slow down; tried again later.",
  server_error: "The service had an internal problem; tried again later.",
  network_error: "The service could not be reached; tried again later.",
  timeout: "The service did not answer in time; tried again later.",
  invalid_payload: "The service refused the data as it is; it will not change by itself.",
  invalid_token: "The customer's connection is no longer valid; they need to reconnect.",
  reconnect_required: "The customer's connection is no longer valid; they need to reconnect.",
  insufficient_scope: "The customer's connection lacks a permission; they need to reconnect.",
  order_not_found: "The service did not have the order of this shipment yet; tried again later.",
};

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
  if (!job) return { missing: "The Shopify data is no longer stored (finished work is cleared after 30 days)." };
  let payload: unknown = (job.payload as { data?: unknown } | null)?.data;
  if (job.deliveryId) {
    const delivery = await prisma.webhookDelivery.findFirst({
      where: { id: job.deliveryId, shop },
      select: { payload: true },
    });
    payload = delivery?.payload ?? payload;
  }
  if (!payload) return { missing: "The Shopify data is no longer stored." };
  const mapped = kind === "order" ? mapOrder(payload as ShopifyOrder) : mapFulfillment(payload as ShopifyFulfillment);
  return mapped.ok ? { json: JSON.stringify(mapped.request, null, 2) } : { missing: `No request: ${mapped.reason}` };
}

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
      title: `Cart handoff ${handoff.externalCartId}`,
      customer: customerLabel(handoff.customerId, names, "Guest"),
      state: handoff.state,
      reason: handoff.reason,
      lineCount: handoff.lineCount,
      total: `${(Number(handoff.totalMinor) / 100).toFixed(2)} ${handoff.currency}`.trim(),
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
  const name = record.orderName ?? `order ${record.orderId}`;
  return {
    type: "record",
    id: record.id,
    kind: record.kind,
    title: record.kind === "order" ? `Order ${name}` : `Shipment ${record.externalId} of ${name}`,
    orderId: record.orderId,
    externalId: record.externalId,
    adminOrderUrl: adminOrderUrl(shop, record.orderId),
    customer: customerLabel(record.customerId, names, "No customer"),
    state: record.state,
    resolvedAt: record.resolvedAt?.toISOString() ?? null,
    reason: record.reason,
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
      // Our own message of the time when there is one; otherwise what the kind of outcome means.
      explanation: a.message ?? EXPLAIN[a.outcome] ?? a.outcome,
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
