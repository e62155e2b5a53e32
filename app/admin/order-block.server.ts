// What the order page block (extensions/order-sync-block, Shopify's order details page) shows and does: for one
// order of the token's shop, its order import and each shipment import (state, time, reason in plain words, the
// workspace, the record's page in the app), whether the shop's sync is paused, and Retry now / Mark as resolved
// with the same code and rules as the sync log (log-actions.server.ts). An order id of another shop, or one never
// seen, answers "unknown": the block cannot tell them apart, and neither can a probing caller.
import type { PrismaClient } from "@prisma/client";
import { isSyncPaused } from "../sync/status.server";
import { RETRYABLE_STATES } from "../sync/states";
import { resolveRecords, retryRecord, type ActionResult } from "./log-actions.server";
import type { BlockRecord, OrderBlockView } from "./order-block-view";

export type { BlockRecord, OrderBlockView };

/** "gid://shopify/Order/123" (what the admin hands the block) or "123": the numeric id, or null. */
export function orderIdOf(input: unknown): string | null {
  if (typeof input !== "string" || input.length > 64) return null;
  const match = /^(?:gid:\/\/shopify\/Order\/)?(\d{1,20})$/.exec(input);
  return match ? match[1] : null;
}

// The customer has no workspace the import could go to (app/sync/reasons.ts).
const NO_WORKSPACE = new Set(["not_connected", "no_customer"]);
const MAX_SHIPMENTS = 50;

function view(
  workspaces: Map<string, string>,
  r: {
    id: string;
    kind: string;
    externalId: string;
    state: string;
    reason: string | null;
    reasonCode: string | null;
    workspaceId: string | null;
    customerId: string | null;
    resolvedAt: Date | null;
    importedAt: Date | null;
    lastAttemptAt: Date | null;
    createdAt: Date;
  },
): BlockRecord {
  return {
    id: r.id,
    kind: r.kind === "shipment" ? "shipment" : "order",
    externalId: r.externalId,
    state: r.state,
    at: (r.importedAt ?? r.lastAttemptAt ?? r.createdAt).toISOString(),
    reason: r.reason,
    reasonCode: r.reasonCode,
    workspaceId: r.workspaceId ?? (r.customerId ? (workspaces.get(r.customerId) ?? null) : null),
    resolved: r.resolvedAt !== null,
    canRetry: RETRYABLE_STATES.has(r.state),
    canResolve: RETRYABLE_STATES.has(r.state) && r.resolvedAt === null,
    path: `/app/log/${encodeURIComponent(r.id)}`,
  };
}

export async function loadOrderBlock(prisma: PrismaClient, shop: string, orderId: string): Promise<OrderBlockView> {
  const [records, paused] = await Promise.all([
    prisma.syncRecord.findMany({
      where: { shop, orderId },
      orderBy: [{ kind: "asc" }, { createdAt: "asc" }],
      take: MAX_SHIPMENTS + 1,
    }),
    isSyncPaused(prisma, shop),
  ]);
  if (records.length === 0) return { status: "unknown", paused };
  const customers = [...new Set(records.map((r) => r.customerId).filter((c): c is string => !!c))];
  const grants = customers.length
    ? await prisma.customerGrant.findMany({
        where: { shop, customerId: { in: customers } },
        select: { customerId: true, workspaceId: true },
      })
    : [];
  const workspaces = new Map(grants.map((g) => [g.customerId, g.workspaceId]));
  const orderRow = records.find((r) => r.kind === "order") ?? null;
  const order = orderRow ? view(workspaces, orderRow) : null;
  const shipments = records.filter((r) => r.kind === "shipment").map((r) => view(workspaces, r));
  const noWorkspace = orderRow !== null && orderRow.reasonCode !== null && NO_WORKSPACE.has(orderRow.reasonCode);
  return { status: noWorkspace ? "no_workspace" : "ok", paused, order, shipments };
}

export type BlockIntent = "retry" | "resolve";

/**
 * Retry now / Mark as resolved on one record of this order, as the sync log does it. The record must belong to the
 * order and the shop: anything else answers as not found, changing nothing.
 */
export async function orderBlockAction(
  prisma: PrismaClient,
  shop: string,
  orderId: string,
  input: { intent: unknown; recordId: unknown },
): Promise<ActionResult> {
  if (input.intent !== "retry" && input.intent !== "resolve") return { ok: false, message: "Unknown action." };
  const recordId = typeof input.recordId === "string" && input.recordId.length <= 64 ? input.recordId : "";
  const record = recordId
    ? await prisma.syncRecord.findFirst({ where: { id: recordId, shop, orderId }, select: { id: true } })
    : null;
  if (!record) return { ok: false, message: "That import was not found." };
  return input.intent === "retry" ? retryRecord(prisma, shop, record.id) : resolveRecords(prisma, shop, [record.id]);
}
