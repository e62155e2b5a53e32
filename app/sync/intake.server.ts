// Durable intake of Shopify webhooks: a delivery is recorded before Shopify gets its 200, and a redelivery of
// the same event (same X-Shopify-Event-Id) is recorded once. Processing happens later, in the worker.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@prisma/client";
import { minimiseWebhookPayload } from "./minimise.server";
import { idString, orderNameOf } from "./mapping.server";
import { orderKeyOf } from "./queue.server";

export interface Delivery {
  shop: string;
  topic: string;
  /** X-Shopify-Event-Id; falls back to the webhook id, which is also stable across retries. */
  eventId: string;
  webhookId?: string;
  payload: unknown;
}

export interface IntakeResult {
  deliveryId: string;
  duplicate: boolean;
  jobId?: string;
}

/** Records a delivery that queues nothing (once per event id): compliance topics, payloads without ids. */
export async function recordDelivery(prisma: PrismaClient, delivery: Delivery): Promise<IntakeResult> {
  return prisma.$transaction(async (tx) => {
    const inserted = await tx.webhookDelivery.createManyAndReturn({
      data: [
        {
          shop: delivery.shop,
          topic: delivery.topic,
          eventId: delivery.eventId,
          webhookId: delivery.webhookId,
          payload: delivery.payload as Prisma.InputJsonValue,
        },
      ],
      skipDuplicates: true,
      select: { id: true },
    });
    if (inserted.length === 0) {
      const existing = await tx.webhookDelivery.findUniqueOrThrow({
        where: { shop_eventId: { shop: delivery.shop, eventId: delivery.eventId } },
        select: { id: true },
      });
      return { deliveryId: existing.id, duplicate: true };
    }
    return { deliveryId: inserted[0].id, duplicate: false };
  });
}

const SYNC_TOPICS: Record<string, "order" | "shipment"> = {
  ORDERS_CREATE: "order",
  ORDERS_UPDATED: "order",
  FULFILLMENTS_CREATE: "shipment",
  FULFILLMENTS_UPDATE: "shipment",
};

/** "orders/create" and "ORDERS_CREATE" alike. */
export function syncKindOf(topic: string): "order" | "shipment" | undefined {
  return SYNC_TOPICS[topic.toUpperCase().replace(/\//g, "_")];
}

/**
 * The webhook fast path: delivery, merchant-visible record and job written by ONE statement (one round trip, one
 * implicit transaction, all or nothing). A redelivered event inserts nothing: the CTEs after the delivery insert
 * only run on the row it returned. The job points at the delivery for its payload, so the body is stored once.
 */
export async function recordSyncDelivery(prisma: PrismaClient, received: Delivery): Promise<IntakeResult> {
  const kind = syncKindOf(received.topic);
  // Only what the sync needs is ever stored: no shopper contact data (app/sync/minimise.server.ts).
  const delivery = { ...received, payload: minimiseWebhookPayload(kind, received.payload) };
  const p = (delivery.payload ?? {}) as Record<string, unknown>;
  const externalId = idString(p.id as string | number | undefined);
  const orderId = idString((kind === "order" ? p.id : p.order_id) as string | number | undefined);
  if (!kind || !externalId || !orderId) {
    // Not something we import (or no id to key it by): keep the delivery for the record, nothing to queue.
    return recordDelivery(prisma, delivery);
  }
  const orderName = orderNameOf(kind, p) ?? null;
  const body = JSON.stringify(delivery.payload ?? null);
  const rows = await prisma.$queryRaw<{ deliveryId: string | null; jobId: string | null }[]>`
    WITH d AS (
      INSERT INTO "WebhookDelivery" (id, shop, topic, "eventId", "webhookId", payload, "receivedAt")
      VALUES (${randomUUID()}, ${delivery.shop}, ${delivery.topic}, ${delivery.eventId}, ${delivery.webhookId ?? null}, ${body}::jsonb,
        now() AT TIME ZONE 'UTC')
      ON CONFLICT (shop, "eventId") DO NOTHING
      RETURNING id
    ), r AS (
      INSERT INTO "SyncRecord" (id, shop, kind, "externalId", "orderId", "orderName", state, "createdAt", "updatedAt")
      SELECT ${randomUUID()}, ${delivery.shop}, ${kind}, ${externalId}, ${orderId},
        -- a fulfillment without a name takes its order's
        COALESCE(${orderName}, (SELECT o."orderName" FROM "SyncRecord" o WHERE o.shop = ${delivery.shop} AND o.kind = 'order' AND o."externalId" = ${orderId})),
        'pending', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC' FROM d
      ON CONFLICT (shop, kind, "externalId") DO UPDATE SET "updatedAt" = EXCLUDED."updatedAt",
        "orderName" = COALESCE(EXCLUDED."orderName", "SyncRecord"."orderName")
      RETURNING id
    ), j AS (
      INSERT INTO "Job" (id, shop, kind, "orderKey", payload, "deliveryId", "recordId", "runAt", "createdAt", "updatedAt")
      SELECT ${randomUUID()}, ${delivery.shop}, ${kind}, ${orderKeyOf(orderId)}, '{}'::jsonb, d.id, r.id,
        now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC' FROM d, r
      RETURNING id
    )
    SELECT (SELECT id FROM d) AS "deliveryId", (SELECT id FROM j) AS "jobId"`;
  const row = rows[0];
  if (row?.deliveryId) return { deliveryId: row.deliveryId, jobId: row.jobId ?? undefined, duplicate: false };
  const existing = await prisma.webhookDelivery.findUniqueOrThrow({
    where: { shop_eventId: { shop: delivery.shop, eventId: delivery.eventId } },
    select: { id: true },
  });
  return { deliveryId: existing.id, duplicate: true };
}
