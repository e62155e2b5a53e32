// The intake statement: what a sync delivery becomes (the delivery, its record and its job, only what the sync needs:
// ./minimise.server.ts) and the one SQL statement that writes a batch of them (docs/decisions/0004), prepared per
// size for small batches; the ids of redeliveries. The batching around it: ./intake-batcher.server.ts.
import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { rawQuery, type Db } from "../db/sql.server";
import { normalizeTopic } from "../shopify/webhook-headers";
import { idString, orderIdOf, orderKeyOf, orderNameOf } from "./mapping.server";
import { minimiseWebhookPayload } from "./minimise.server";

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

const SYNC_TOPICS: Record<string, "order" | "shipment"> = {
  ORDERS_CREATE: "order",
  ORDERS_UPDATED: "order",
  FULFILLMENTS_CREATE: "shipment",
  FULFILLMENTS_UPDATE: "shipment",
};

/** "orders/create" and "ORDERS_CREATE" alike (Shopify's one topic normaliser, app/shopify/webhook-headers.ts). */
export function syncKindOf(topic: string): "order" | "shipment" | undefined {
  return SYNC_TOPICS[normalizeTopic(topic)];
}

/** One row of the batch statement: what the delivery becomes (record and job only for importable topics). */
export interface Row {
  key: string;
  deliveryId: string;
  delivery: Delivery;
  body: string;
  kind: string | null;
  externalId: string | null;
  orderId: string | null;
  /** Shopify's order name ("#1001") for the admin; a fulfillment's comes from its order's record when it has none. */
  orderName: string | null;
  recordId: string;
  jobId: string;
}

export const keyOf = (d: Pick<Delivery, "shop" | "eventId">) => `${d.shop}\u0000${d.eventId}`;

/**
 * A sync delivery's id kept as a WebhookReceipt ("delivery:<shop>:<event id>") when shop/redact deletes the delivery
 * (app/privacy/compliance.server.ts): the intake answers a replay of it as a redelivery, so an old order is not
 * imported again after a reinstall. Built in SQL here and there, from this prefix.
 */
export const DELIVERY_RECEIPT_PREFIX = "delivery:";

export function toRow(received: Delivery): Row {
  const kind = syncKindOf(received.topic) ?? null;
  // Only what the sync needs is ever stored: no shopper contact data (app/sync/minimise.server.ts).
  const delivery = { ...received, payload: minimiseWebhookPayload(kind ?? undefined, received.payload) };
  const p = (delivery.payload ?? {}) as Record<string, unknown>;
  const externalId = kind ? (idString(p.id as string | number | undefined) ?? null) : null;
  const orderId = kind ? (orderIdOf(kind, p) ?? null) : null;
  const importable = Boolean(kind && externalId && orderId);
  return {
    key: keyOf(delivery),
    deliveryId: randomUUID(),
    delivery,
    body: JSON.stringify(delivery.payload ?? null),
    kind: importable ? kind : null,
    externalId: importable ? externalId : null,
    orderId: importable ? orderId : null,
    orderName: importable ? (orderNameOf(kind!, p) ?? null) : null,
    recordId: randomUUID(),
    jobId: randomUUID(),
  };
}

/**
 * Batches up to this size run as prepared statements, one per size: parsing and planning the statement cost more
 * than running it for one row (docs/decisions/0004), and at the rates a shop sends most batches are this small.
 * Larger ones stay unprepared: their parse and plan are shared by many deliveries, and a connection keeps no plan
 * per size. (A single prepared form taking the batch as one JSON parameter cost PostgreSQL more CPU per delivery:
 * its generic plan is worse.)
 */
export const PREPARED_BATCH_SIZES = 16;

/** The parameter types of one delivery's row in the statement: its sequence number, then its text columns. */
const COLUMNS = ["int", ...Array<string>(13).fill("text")];

/**
 * The intake statement: deliveries (ON CONFLICT DO NOTHING), their records (one per
 * resource even when two deliveries of one order share the batch; an existing record is only touched) and one job
 * per new importable delivery, in arrival order so jobs keep their `seq` order. Unique keys are inserted in key
 * order, so two batches racing on the same redeliveries wait for each other instead of deadlocking. A delivery whose
 * id shop/redact kept as a receipt is a redelivery too.
 */
const WRITE_HEAD = `
    WITH input (ord, id, shop, topic, "eventId", "webhookId", body, kind, "externalId", "orderId", "orderKey", "orderName", "recordId", "jobId") AS (
      VALUES `;
const WRITE_TAIL = `
    ), d AS (
      INSERT INTO "WebhookDelivery" (id, shop, topic, "eventId", "webhookId", payload, "receivedAt")
      SELECT id, shop, topic, "eventId", "webhookId", body::jsonb, now() AT TIME ZONE 'UTC' FROM input
      WHERE NOT EXISTS (SELECT 1 FROM "WebhookReceipt" k WHERE k.key = '${DELIVERY_RECEIPT_PREFIX}' || input.shop || ':' || input."eventId")
      ORDER BY shop, "eventId"
      ON CONFLICT (shop, "eventId") DO NOTHING
      RETURNING id
    ), fresh AS (
      SELECT i.* FROM input i JOIN d ON d.id = i.id WHERE i.kind IS NOT NULL
    ), r AS (
      INSERT INTO "SyncRecord" (id, shop, kind, "externalId", "orderId", "orderName", state, "createdAt", "updatedAt")
      SELECT DISTINCT ON (shop, kind, "externalId") "recordId", shop, kind, "externalId", "orderId",
        COALESCE("orderName", (SELECT o."orderName" FROM "SyncRecord" o WHERE o.shop = fresh.shop AND o.kind = 'order' AND o."externalId" = fresh."orderId")),
        'pending', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
      FROM fresh ORDER BY shop, kind, "externalId", ord
      ON CONFLICT (shop, kind, "externalId") DO UPDATE SET "updatedAt" = EXCLUDED."updatedAt",
        "orderName" = COALESCE(EXCLUDED."orderName", "SyncRecord"."orderName")
      RETURNING id, shop, kind, "externalId"
    ), j AS (
      INSERT INTO "Job" (id, shop, kind, "orderKey", payload, "deliveryId", "recordId", "runAt", "createdAt", "updatedAt")
      SELECT f."jobId", f.shop, f.kind, f."orderKey", '{}'::jsonb, f.id, r.id,
        now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
      FROM fresh f JOIN r ON r.shop = f.shop AND r.kind = f.kind AND r."externalId" = f."externalId"
      ORDER BY f.ord
      RETURNING id, "deliveryId"
    )
    SELECT d.id AS "deliveryId", j.id AS "jobId" FROM d LEFT JOIN j ON j."deliveryId" = d.id`;

/** The intake statement for these rows: the text around its parameters, and the parameters (14 a row). */
export function deliveriesStatement(rows: Row[]): { parts: string[]; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  let text = WRITE_HEAD;
  rows.forEach((r, i) => {
    values.push(
      i,
      r.deliveryId,
      r.delivery.shop,
      r.delivery.topic,
      r.delivery.eventId,
      r.delivery.webhookId ?? null,
      r.body,
      r.kind,
    );
    values.push(r.externalId, r.orderId, r.orderId ? orderKeyOf(r.orderId) : null, r.orderName, r.recordId, r.jobId);
    COLUMNS.forEach((type, c) => {
      parts.push(`${text}${c === 0 ? (i === 0 ? "(" : ", (") : ", "}`);
      text = `::${type}`;
    });
    text += ")";
  });
  parts.push(text + WRITE_TAIL);
  return { parts, values };
}

/**
 * Writes the rows with the intake statement. Returns, per delivery key, the delivery id and the job id when this
 * statement created them; a key missing from the result was a redelivery.
 */
export async function writeDeliveries(
  db: Db,
  rows: Row[],
): Promise<Map<string, { deliveryId: string; jobId: string | null }>> {
  const { parts, values } = deliveriesStatement(rows);
  // Prepared (named) once per connection for each size up to PREPARED_BATCH_SIZES: one name, one text.
  const name = rows.length <= PREPARED_BATCH_SIZES ? `intake_${rows.length}` : undefined;
  const inserted = await rawQuery<{ deliveryId: string; jobId: string | null }>(db, Prisma.sql(parts, ...values), name);
  const byId = new Map(inserted.map((row) => [row.deliveryId, row.jobId]));
  const out = new Map<string, { deliveryId: string; jobId: string | null }>();
  for (const row of rows) {
    if (byId.has(row.deliveryId))
      out.set(row.key, { deliveryId: row.deliveryId, jobId: byId.get(row.deliveryId) ?? null });
  }
  return out;
}

// The redeliveries' ids: the keys as one JSON parameter.
const EXISTING_IDS = [
  `SELECT d.id, d.shop, d."eventId" FROM "WebhookDelivery" d
    JOIN json_to_recordset(`,
  `::json) AS x(shop text, "eventId" text) ON d.shop = x.shop AND d."eventId" = x."eventId"`,
];

export async function existingIds(db: Db, deliveries: Delivery[]): Promise<Map<string, string>> {
  const keys = JSON.stringify(deliveries.map((d) => ({ shop: d.shop, eventId: d.eventId })));
  const found = await rawQuery<{ id: string; shop: string; eventId: string }>(
    db,
    Prisma.sql(EXISTING_IDS, keys),
    "intake_existing",
  );
  return new Map(found.map((f) => [keyOf(f), f.id]));
}
