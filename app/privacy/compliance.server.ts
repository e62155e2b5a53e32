// Shopify's privacy webhooks, as plain functions over Prisma: erase what the app holds about a customer
// (customers/redact) or about a whole shop (shop/redact). Tokens are put in the revocation outbox in the same
// transaction as the rows that held them are deleted, so a grant is never deleted without its revocation queued.
// What is kept after a customer redaction is the sync log an import needs as proof: ids, states and times.
import { Prisma, type PrismaClient } from "@prisma/client";
import { queueRevocationsOf } from "../connections/revocations.server";
import type { Keyring } from "../crypto/secret-box.server";
import { retentionDaysSql } from "../db/shop-settings.server";
import type { Db } from "../db/sql.server";
import { forgetBudgetsOf } from "../lib/shared-budget.server";
import { orderKeyOf } from "../sync/mapping.server";
import { DELIVERY_RECEIPT_PREFIX } from "../sync/intake-write.server";
import { DEFAULT_RETENTION_DAYS } from "./retention.server";

export const REDACTED_REASON = "Not sent: the customer's data was erased at their request (customers/redact).";
const REDACTED_JOB = "Cancelled: the customer's data was erased (customers/redact).";

export interface CustomerRedaction {
  shop: string;
  customerId: string;
  /** Shopify's orders_to_redact: order ids, erased whoever they belong to now. */
  ordersToRedact?: string[];
}

export interface RedactionReport {
  grantsDeleted: number;
  revocationsQueued: number;
  ordersRedacted: number;
  jobsCancelled: number;
}

/**
 * The Shopify ids of a customer's orders the app knows: those the sync log ties to them, and those whose stored
 * payload names them (an order not run yet has no customer in the log).
 */
export async function customerOrderIds(db: Db, shop: string, customerId: string): Promise<string[]> {
  const owned = await db.syncRecord.findMany({
    where: { shop, customerId, kind: "order" },
    select: { externalId: true },
  });
  const stored = await db.$queryRaw<{ id: string | null }[]>`
    SELECT payload->>'id' AS id FROM "WebhookDelivery" WHERE shop = ${shop} AND payload->'customer'->>'id' = ${customerId}
    UNION SELECT payload->'data'->>'id' FROM "Job" WHERE shop = ${shop} AND payload->'data'->'customer'->>'id' = ${customerId}`;
  return [...new Set([...owned.map((r) => r.externalId), ...stored.flatMap((r) => (r.id ? [r.id] : []))])];
}

const jsonIds = (ids: string[]) => Prisma.sql`ARRAY[${Prisma.join(ids.length ? ids : [""])}]::text[]`;

export async function redactCustomer(
  prisma: PrismaClient,
  input: CustomerRedaction,
  options: { keyring?: Keyring; now?: Date } = {},
): Promise<RedactionReport> {
  const { shop, customerId } = input;
  const now = options.now ?? new Date();
  return prisma.$transaction(async (tx) => {
    // First: a past-orders page running now holds its Backfill row until it commits (app/sync/backfill.server.ts),
    // so this waits for it and the statements below see what it queued; one that starts later finds no row and
    // writes nothing.
    await tx.backfill.deleteMany({ where: { shop, customerId } });
    const revocationsQueued = await queueRevocationsOf(tx, { shop, customerId }, { keyring: options.keyring, now });
    const { count: grantsDeleted } = await tx.customerGrant.deleteMany({ where: { shop, customerId } });
    await tx.oAuthState.deleteMany({ where: { shop, customerId } });

    const orderIds = [...new Set([...(await customerOrderIds(tx, shop, customerId)), ...(input.ordersToRedact ?? [])])];
    const orderKeys = orderIds.map(orderKeyOf);

    // Waiting work of theirs is never run: its payload goes, the reason says why.
    const theirs = [{ orderKey: { in: orderKeys } }, { payload: { path: ["customerId"], equals: customerId } }];
    const { count: cancelled } = await tx.job.updateMany({
      where: { shop, status: "queued", OR: theirs },
      data: {
        status: "cancelled",
        payload: {},
        lastError: REDACTED_JOB,
        finishedAt: now,
        leasedBy: null,
        leaseUntil: null,
      },
    });
    await tx.job.updateMany({ where: { shop, OR: theirs, NOT: { payload: { equals: {} } } }, data: { payload: {} } });
    // Shopify Flow triggers about them (app/sync/flow-trigger.server.ts) are not sent, and their ids go.
    await tx.$executeRaw`
      UPDATE "Job" SET payload = '{}'::jsonb, "updatedAt" = ${now},
        status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END,
        "finishedAt" = CASE WHEN status = 'queued' THEN ${now} ELSE "finishedAt" END,
        "lastError" = CASE WHEN status = 'queued' THEN ${REDACTED_JOB} ELSE "lastError" END
      WHERE shop = ${shop} AND kind = 'flow_trigger' AND payload <> '{}'::jsonb
        AND (payload->'trigger'->>'customer_id' = ${customerId} OR payload->'trigger'->>'order_id' = ANY(${jsonIds(orderIds)}))`;
    // Stored payloads of their orders and of those orders' fulfillments.
    await tx.$executeRaw`
      UPDATE "WebhookDelivery" SET payload = '{}'::jsonb
      WHERE shop = ${shop} AND payload <> '{}'::jsonb
        AND (payload->>'id' = ANY(${jsonIds(orderIds)}) OR payload->>'order_id' = ANY(${jsonIds(orderIds)})
          OR payload->'customer'->>'id' = ${customerId})`;
    // The sync log keeps ids, states and times; what waited for them will not be sent.
    await tx.syncRecord.updateMany({
      where: { shop, OR: [{ customerId }, { orderId: { in: orderIds } }], state: { in: ["pending", "waiting"] } },
      data: { state: "skipped", reason: REDACTED_REASON },
    });
    // The redaction count fences a job that read one of these records before now: it cannot write the customer back
    // (app/sync/record-state.server.ts checks the count in the same UPDATE).
    await tx.syncRecord.updateMany({
      where: { shop, OR: [{ customerId }, { orderId: { in: orderIds } }] },
      data: { customerId: null, redactions: { increment: 1 } },
    });
    // Their cart handoffs go whole: the lines are their cart, the claim URL a bearer link to it.
    await tx.cartHandoff.deleteMany({ where: { shop, customerId } });
    await tx.dataRequest.deleteMany({ where: { shop, customerId } });
    await forgetBudgetsOf(tx, { shop, customerId });
    return { grantsDeleted, revocationsQueued, ordersRedacted: orderIds.length, jobsCancelled: cancelled };
  });
}

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

/**
 * Every model that records a shop, from Prisma's own description of the schema: a model added later is erased by
 * shop/redact without anyone having to remember this function (the shop-wide test checks every model).
 */
export function shopScopedModels(): string[] {
  return Prisma.dmmf.datamodel.models
    .filter((m) => m.fields.some((f) => f.name === "shop" && f.kind === "scalar"))
    .map((m) => m.name);
}

/**
 * What shop/redact keeps: the shop's webhook receipts (ids, topic and times; no payload, nothing of a customer),
 * until the shop's retention period after each was received, so an old delivery replayed after a reinstall is
 * answered as a redelivery and not acted on or imported again. Housekeeping deletes them when they expire.
 */
export const KEPT_BY_SHOP_REDACT = ["WebhookReceipt"];

/**
 * The ids of the shop's sync deliveries become receipts (the intake refuses a delivery whose receipt exists,
 * app/sync/intake-write.server.ts), and every receipt of the shop gets its expiry.
 */
async function keepReceipts(tx: Prisma.TransactionClient, shop: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "WebhookReceipt" (key, shop, topic, "receivedAt", "expiresAt")
    SELECT ${DELIVERY_RECEIPT_PREFIX} || d.shop || ':' || d."eventId", d.shop, d.topic, d."receivedAt",
      d."receivedAt" + make_interval(days => ${retentionDaysSql("d", DEFAULT_RETENTION_DAYS)})
    FROM "WebhookDelivery" d
    WHERE d.shop = ${shop}
    ON CONFLICT (key) DO NOTHING`;
  await tx.$executeRaw`
    UPDATE "WebhookReceipt" r SET "expiresAt" = r."receivedAt" + make_interval(days => ${retentionDaysSql("r", DEFAULT_RETENTION_DAYS)})
    WHERE r.shop = ${shop} AND r."expiresAt" IS NULL`;
}

/**
 * shop/redact: revokes every grant and pending connection of the shop (queued), then deletes all its rows except
 * the webhook receipts (KEPT_BY_SHOP_REDACT), which expire.
 */
export async function redactShop(
  prisma: PrismaClient,
  shop: string,
  options: { keyring?: Keyring; now?: Date } = {},
): Promise<{ revocationsQueued: number; rowsDeleted: number }> {
  return prisma.$transaction(async (tx) => {
    const revocationsQueued = await queueRevocationsOf(tx, { shop }, { keyring: options.keyring, now: options.now });
    await keepReceipts(tx, shop); // before the deliveries and the settings (its retention period) go
    let rowsDeleted = 0;
    for (const model of shopScopedModels().filter((m) => !KEPT_BY_SHOP_REDACT.includes(m))) {
      const delegate = (
        tx as unknown as Record<string, { deleteMany(args: { where: { shop: string } }): Promise<{ count: number }> }>
      )[lowerFirst(model)];
      rowsDeleted += (await delegate.deleteMany({ where: { shop } })).count;
    }
    await forgetBudgetsOf(tx, { shop }); // keyed by name, not by a shop column
    return { revocationsQueued, rowsDeleted };
  });
}
