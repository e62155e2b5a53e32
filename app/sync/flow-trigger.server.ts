// Shopify Flow's "Order import needs attention" trigger (extensions/order-import-flow-trigger): when an import
// record becomes failed, a `flow_trigger` job is queued in the same transaction, and the worker sends it with
// `flowTriggerReceive` through Shopify's Admin API client. Durable: a Flow call that fails is retried by the queue
// with backoff, on its own job (no orderKey), so it never holds back an order's imports.
//
// One trigger per failure episode: `SyncRecord.flowNotifiedAt` is set when the trigger is queued and cleared when the
// record is imported again (recordImported), so retries that fail again send nothing more, while a record that
// recovers and fails later sends one more. The merchant's switch (`ShopSettings.flowTriggerEnabled`, Settings) is read
// when the record fails: off, nothing is queued.
//
// The payload holds ids, the order's name, the kind and the reason: never the buyer's name, email or address.
// The queueing side is here (the queue and the record's transitions call it); the worker's run of the job, which
// sends the trigger, is in flow-trigger-job.server.ts.
import type { Prisma } from "@prisma/client";
import type { Db } from "../db/sql.server";

/** The trigger's handle, as in extensions/order-import-flow-trigger/shopify.extension.toml. */
export const FLOW_TRIGGER_HANDLE = "order-import-needs-attention";
export const FLOW_JOB_KIND = "flow_trigger";
/** Flow gives up on a trigger after about a day of tries (backoff capped at 15 min). */
const FLOW_MAX_ATTEMPTS = 20;
const MAX_TEXT = 255; // Flow's single_line_text_field

export const FLOW_TRIGGER_MUTATION = `#graphql
  mutation FlowTriggerReceive($handle: String!, $payload: JSON!) {
    flowTriggerReceive(handle: $handle, payload: $payload) {
      userErrors { field message }
    }
  }`;

/**
 * Inside the transaction that wrote `state = 'failed'` on the record: marks the episode and queues the trigger,
 * unless this episode already has one or the shop switched Flow off. Returns whether a trigger was queued.
 */
export async function queueFlowTriggerOnFailure(tx: Db, recordId: string, now: Date): Promise<boolean> {
  const [marked] = await tx.$queryRaw<(Parameters<typeof flowPayload>[0] & { shop: string })[]>`
    UPDATE "SyncRecord" r SET "flowNotifiedAt" = ${now}
    WHERE r.id = ${recordId} AND r.state = 'failed' AND r."flowNotifiedAt" IS NULL
      AND COALESCE((SELECT s."flowTriggerEnabled" FROM "ShopSettings" s WHERE s.shop = r.shop), true)
    RETURNING r.shop, r.kind, r."orderId", r."orderName", r."customerId", r."reasonCode"::text AS "reasonCode", r.reason`;
  if (!marked) return false;
  const trigger = flowPayload(marked);
  if (!trigger) return false;
  // The failure as it was (a retry may change the record before the trigger goes out). No recordId column on the
  // job: a record's jobs are its imports (Retry re-queues the latest one).
  await tx.job.create({
    data: {
      shop: marked.shop,
      kind: FLOW_JOB_KIND,
      payload: { recordId, trigger: { ...trigger } as Prisma.InputJsonObject },
      runAt: now,
      maxAttempts: FLOW_MAX_ATTEMPTS,
    },
  });
  return true;
}

export interface FlowTriggerPayload {
  /** Ids as strings of digits, as the rest of the app keeps them: exact above 2^53, where a number would not be. */
  order_id: string;
  customer_id?: string;
  "Order name": string;
  "Import kind": "order" | "shipment";
  "Reason code": string;
  Reason: string;
}

/** A Shopify id kept as a string of digits (exact above 2^53), or undefined. */
export const numericId = (id: string | null | undefined) => (id && /^\d{1,20}$/.test(id) ? id : undefined);
const clip = (s: string) => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s);

/** The declared fields (extensions/order-import-flow-trigger), from the record as it is now. */
export function flowPayload(record: {
  kind: string;
  orderId: string;
  orderName: string | null;
  customerId: string | null;
  reasonCode: string | null;
  reason: string | null;
}): FlowTriggerPayload | null {
  const orderId = numericId(record.orderId);
  if (orderId === undefined) return null;
  const customerId = numericId(record.customerId);
  return {
    order_id: orderId,
    ...(customerId === undefined ? {} : { customer_id: customerId }),
    "Order name": clip(record.orderName ?? ""),
    "Import kind": record.kind === "shipment" ? "shipment" : "order",
    "Reason code": record.reasonCode ?? "unknown",
    Reason: clip(record.reason ?? ""),
  };
}

/** The merchant's switch (Settings): whether failures are sent to Shopify Flow. On unless switched off. */
export async function getFlowTriggerEnabled(prisma: Db, shop: string): Promise<boolean> {
  return (
    (await prisma.shopSettings.findUnique({ where: { shop }, select: { flowTriggerEnabled: true } }))
      ?.flowTriggerEnabled ?? true
  );
}

/** An unticked checkbox sends nothing: anything but "on" switches it off. Applies to failures from now on. */
export async function saveFlowTriggerEnabled(prisma: Db, shop: string, value: unknown): Promise<boolean> {
  const enabled = value === "on";
  await prisma.shopSettings.upsert({
    where: { shop },
    create: { shop, flowTriggerEnabled: enabled },
    update: { flowTriggerEnabled: enabled },
  });
  return enabled;
}
