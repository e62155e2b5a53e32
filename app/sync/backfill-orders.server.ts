// How a backfilled order becomes import jobs, for both paths (backfill.server.ts, bulk-backfill.server.ts): the
// order and each of its fulfillments get their record (linked to the customer) and a job, as a webhook would; the
// import job's content-derived idempotency key keeps an order that came twice from being imported twice.
import type { Prisma } from "@prisma/client";
import { restFulfillmentsFromGraphql, restOrderFromGraphql, type GqlOrder } from "./backfill-queries.server";
import { orderKeyOf, orderNameOf } from "./mapping.server";
import { enqueueJob } from "./queue.server";

/** Queues one order and its fulfillments for import, as a webhook would (records linked to the customer). */
export async function queueOrder(
  tx: Prisma.TransactionClient,
  shop: string,
  customerId: string,
  node: GqlOrder,
  now: Date,
): Promise<void> {
  const order = restOrderFromGraphql(node);
  const orderId = String(order.id);
  const orderName = orderNameOf("order", order);
  const record = await upsertRecord(tx, shop, "order", orderId, orderId, customerId, orderName);
  await enqueueJob(tx, {
    shop,
    kind: "order",
    orderKey: orderKeyOf(orderId),
    payload: { data: order, source: "backfill" },
    recordId: record,
    runAt: now,
  });
  for (const fulfillment of restFulfillmentsFromGraphql(node)) {
    const id = String(fulfillment.id);
    const shipment = await upsertRecord(tx, shop, "shipment", id, orderId, customerId, orderName);
    await enqueueJob(tx, {
      shop,
      kind: "shipment",
      orderKey: orderKeyOf(orderId),
      payload: { data: fulfillment, source: "backfill" },
      recordId: shipment,
      runAt: now,
    });
  }
}

async function upsertRecord(
  tx: Prisma.TransactionClient,
  shop: string,
  kind: "order" | "shipment",
  externalId: string,
  orderId: string,
  customerId: string,
  orderName: string | undefined,
): Promise<string> {
  const record = await tx.syncRecord.upsert({
    where: { shop_kind_externalId: { shop, kind, externalId } },
    create: { shop, kind, externalId, orderId, customerId, orderName },
    update: orderName ? { orderName } : {},
    select: { id: true },
  });
  return record.id;
}
