// The sync webhooks' intake (orders/*, fulfillments/*), from the request to "stored": verify
// (app/shopify/webhook.server.ts: body read once and bounded, HMAC, topic, exact-id JSON), keep what the sync needs
// (./minimise.server.ts), write it with the intake statement, answer. Nothing else happens before the answer: no
// session is read (intake needs none), and workers are woken after it.
//
// Group commit (docs/decisions/0004): deliveries that arrive together share ONE statement (one round trip, one
// implicit transaction). Each caller's promise settles only after that statement committed, so a 200 always
// means "stored"; when the statement fails, the batch is written again in halves, so only the delivery the
// database refuses gets the error (the route answers 5xx and Shopify retries) and nothing is half-written. A
// redelivery (same shop + event id) is recorded once, also when both copies land in the same batch.
import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { noteWrite } from "../db/health.server";
import { rawQuery, type Db } from "../db/sql.server";
import { errorName } from "../lib/errors";
import { logger } from "../lib/logger.server";
import {
  intakeBatchDeliveries,
  webhookAnswerSeconds,
  webhookDeliveries,
  type CountSeries,
  type ObserveSeries,
} from "../lib/metrics.server";
import { normalizeTopic } from "../shopify/webhook-headers";
import { topicLabel, verifyWebhook } from "../shopify/webhook.server";
import { minimiseWebhookPayload } from "./minimise.server";
import { idString, orderIdOf, orderKeyOf, orderNameOf } from "./mapping.server";
import { notifyWorkers } from "./signal.server";

export interface SyncIntake {
  /** Answers one delivery of a sync topic (orders/*, fulfillments/*). */
  receive(request: Request, routeTopic: string): Promise<Response>;
  /** Writes what is pending (shutdown). */
  flush(): Promise<void>;
}

/** A topic's metric series, bound once (the route's topic is one of four). */
interface TopicSeries {
  accepted: CountSeries;
  duplicate: CountSeries;
  unavailable: CountSeries;
  answer: ObserveSeries;
}

/** The driver's error code (ECONNREFUSED, 57P01…) or class: a driver's message can carry the connection string. */
const failureOf = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : errorName(error);
};

/**
 * The intake of one process over its database: 413 for a body over the webhook limit, 400 for a malformed
 * delivery or a topic that is not the route's, 401 for a wrong HMAC (nothing stored in any of these cases); 200
 * only once the delivery, its record and its job are committed; a database error answers 503 so Shopify delivers
 * it again. Each delivery is logged with its webhook id and, when it queued one, its job id (the worker's lines
 * about the job carry both), so one order can be followed from intake to import.
 */
export function createSyncIntake(db: Db, options: { postgres: boolean }): SyncIntake {
  // A batch grows while the one before it is written. PGlite runs one statement at a time; on PostgreSQL two
  // batches in flight took more deliveries/s than four did (fewer, larger statements: 0.70-0.79x the floor
  // against 0.69-0.72x, issue 25), and a delivery that finds nothing in flight is written at once.
  const batcher: IntakeBatcher = createIntakeBatcher(db, { maxInFlight: options.postgres ? 2 : 1 });
  const log = logger("sync");
  const byTopic = new Map<string, TopicSeries>();
  const seriesOf = (routeTopic: string): TopicSeries => {
    let series = byTopic.get(routeTopic);
    if (!series) {
      const topic = topicLabel(routeTopic);
      series = {
        accepted: webhookDeliveries.series(topic, "accepted", ""),
        duplicate: webhookDeliveries.series(topic, "duplicate", ""),
        unavailable: webhookDeliveries.series(topic, "unavailable", ""),
        answer: webhookAnswerSeconds.series(topic),
      };
      byTopic.set(routeTopic, series);
    }
    return series;
  };
  return {
    async receive(request, routeTopic) {
      const started = performance.now();
      const check = await verifyWebhook(request, routeTopic);
      if (!check.ok) return check.response;
      const { shop, topic, eventId, webhookId, payload } = check.webhook;
      const series = seriesOf(routeTopic);
      try {
        const result = await batcher.submit({ shop, topic, eventId, webhookId, payload });
        noteWrite();
        if (result.jobId) setImmediate(notifyWorkers);
        (result.duplicate ? series.duplicate : series.accepted).inc();
        series.answer.observe((performance.now() - started) / 1000);
        log.info(
          {
            webhookId,
            eventId,
            topic,
            shop,
            deliveryId: result.deliveryId,
            jobId: result.jobId,
            duplicate: result.duplicate,
          },
          "webhook stored",
        );
        return new Response(null, { status: 200 });
      } catch (error) {
        noteWrite(error); // a full disk: not ready meanwhile (app/db/health.server.ts)
        series.unavailable.inc();
        series.answer.observe((performance.now() - started) / 1000);
        log.warn(
          { webhookId, eventId, topic, shop, err: failureOf(error) },
          "webhook not stored: answered 503, Shopify delivers it again",
        );
        return new Response(null, { status: 503, headers: { "Retry-After": "1" } });
      }
    },
    flush: () => batcher.flush(),
  };
}

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

export interface BatcherOptions {
  /**
   * How long the first delivery of a batch waits for company while another batch is in flight (with none in flight
   * it goes at once, with whatever arrived in the same turn of the event loop). Short: it adds to the answer's time.
   */
  windowMs?: number;
  /** A batch this full is written at once. */
  maxItems?: number;
  /** Batches written at the same time (each holds one database connection while it runs). */
  maxInFlight?: number;
}

export interface IntakeBatcher {
  submit(delivery: Delivery): Promise<IntakeResult>;
  /** Writes what is pending and waits for every batch in flight. */
  flush(): Promise<void>;
}

interface Pending {
  delivery: Delivery;
  resolve: (result: IntakeResult) => void;
  reject: (error: unknown) => void;
}

/** One row of the batch statement: what the delivery becomes (record and job only for importable topics). */
interface Row {
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

const keyOf = (d: Pick<Delivery, "shop" | "eventId">) => `${d.shop}\u0000${d.eventId}`;

/**
 * A sync delivery's id kept as a WebhookReceipt ("delivery:<shop>:<event id>") when shop/redact deletes the delivery
 * (app/privacy/compliance.server.ts): the intake answers a replay of it as a redelivery, so an old order is not
 * imported again after a reinstall. Built in SQL here and there, from this prefix.
 */
export const DELIVERY_RECEIPT_PREFIX = "delivery:";

function toRow(received: Delivery): Row {
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

async function existingIds(db: Db, deliveries: Delivery[]): Promise<Map<string, string>> {
  const keys = JSON.stringify(deliveries.map((d) => ({ shop: d.shop, eventId: d.eventId })));
  const found = await rawQuery<{ id: string; shop: string; eventId: string }>(
    db,
    Prisma.sql(EXISTING_IDS, keys),
    "intake_existing",
  );
  return new Map(found.map((f) => [keyOf(f), f.id]));
}

/** Writes one batch and settles every caller in it (all resolved after the commit, or all rejected). */
async function writeBatch(db: Db, batch: Pending[]): Promise<void> {
  // Copies of one event inside the batch: the first is written, the others are answered as redeliveries of it.
  const rows = new Map<string, Row>();
  for (const item of batch) if (!rows.has(keyOf(item.delivery))) rows.set(keyOf(item.delivery), toRow(item.delivery));
  try {
    const written = await writeDeliveries(db, [...rows.values()]);
    const missing = [...rows.values()].filter((r) => !written.has(r.key)).map((r) => r.delivery);
    const existing = missing.length > 0 ? await existingIds(db, missing) : new Map<string, string>();
    const answered = new Set<string>();
    for (const item of batch) {
      const key = keyOf(item.delivery);
      const mine = written.get(key);
      if (mine && !answered.has(key)) {
        answered.add(key);
        item.resolve({ deliveryId: mine.deliveryId, jobId: mine.jobId ?? undefined, duplicate: false });
      } else {
        // Stored before (this batch or an earlier one); its id when we can see it (a concurrent insert may not be).
        item.resolve({ deliveryId: mine?.deliveryId ?? existing.get(key) ?? "", duplicate: true });
      }
    }
  } catch (error) {
    // One delivery PostgreSQL refuses must not fail the others written with it: the batch is written again in
    // halves (copies of one event kept together) until the refused delivery is alone, and only it fails.
    const keys = [...rows.keys()];
    if (keys.length < 2) {
      for (const item of batch) item.reject(error);
      return;
    }
    const firstHalf = new Set(keys.slice(0, Math.ceil(keys.length / 2)));
    await writeBatch(
      db,
      batch.filter((item) => firstHalf.has(keyOf(item.delivery))),
    );
    await writeBatch(
      db,
      batch.filter((item) => !firstHalf.has(keyOf(item.delivery))),
    );
  }
}

/**
 * One delivery through the same statement, outside any batcher (backfill tests, scripts): resolves once it is
 * committed, as `submit` does.
 */
export function recordSyncDelivery(db: Db, delivery: Delivery): Promise<IntakeResult> {
  return new Promise<IntakeResult>((resolve, reject) => void writeBatch(db, [{ delivery, resolve, reject }]));
}

export function createIntakeBatcher(db: Db, options: BatcherOptions = {}): IntakeBatcher {
  const windowMs = options.windowMs ?? 1;
  const maxItems = options.maxItems ?? 128;
  const maxInFlight = options.maxInFlight ?? 4;
  const pending: Pending[] = [];
  let timer: { cancel(): void } | null = null;
  const inFlight = new Set<Promise<void>>();
  const batchSize = intakeBatchDeliveries.series();

  function startBatch() {
    timer?.cancel();
    timer = null;
    if (pending.length === 0 || inFlight.size >= maxInFlight) return;
    const batch = pending.splice(0, maxItems);
    batchSize.observe(batch.length);
    const running = writeBatch(db, batch).finally(() => {
      inFlight.delete(running);
      // What queued up while every slot was busy goes out now, already a batch.
      if (pending.length > 0) schedule();
    });
    inFlight.add(running);
  }

  function schedule() {
    if (pending.length >= maxItems) return startBatch();
    if (timer) return;
    // With nothing in flight there is no statement to wait beside: the batch is what arrived in this turn of the
    // event loop. While statements run, the window lets the next batch grow.
    if (inFlight.size === 0) {
      const immediate = setImmediate(startBatch);
      timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(startBatch, windowMs);
      timer = { cancel: () => clearTimeout(timeout) };
    }
  }

  return {
    submit(delivery) {
      return new Promise<IntakeResult>((resolve, reject) => {
        pending.push({ delivery, resolve, reject });
        schedule();
      });
    },
    async flush() {
      while (pending.length > 0 || inFlight.size > 0) {
        startBatch();
        await Promise.allSettled([...inFlight]);
      }
    },
  };
}
