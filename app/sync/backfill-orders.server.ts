// How a backfilled order becomes import jobs, for both paths (backfill.server.ts, bulk-backfill.server.ts): the
// order and each of its fulfillments get their record (linked to the customer) and a job, as a webhook would; the
// import job's content-derived idempotency key keeps an order that came twice from being imported twice.
import type { Prisma } from "@prisma/client";
import { restFulfillmentsFromGraphql, restOrderFromGraphql, type GqlOrder } from "./backfill-queries.server";
import { orderKeyOf, orderNameOf } from "./mapping.server";
import { DEFAULT_MAX_ATTEMPTS } from "./queue.server";

/** An order to queue, and the connected customer it is imported for. */
export interface OrderToQueue {
  customerId: string;
  node: GqlOrder;
}

/**
 * Queues orders and their fulfillments for import, as webhooks would: each gets its record (linked to the customer;
 * one that exists keeps its id and takes the order's name) and a job, in file order. A few statements per batch,
 * whatever its size: a launch's bulk backfill queues tens of thousands of orders.
 */
export async function queueOrders(
  tx: Prisma.TransactionClient,
  shop: string,
  orders: OrderToQueue[],
  now: Date,
): Promise<void> {
  if (orders.length === 0) return;
  type Item = {
    kind: "order" | "shipment";
    externalId: string;
    orderId: string;
    customerId: string;
    orderName?: string;
    data: unknown;
  };
  const items: Item[] = [];
  for (const { customerId, node } of orders) {
    const order = restOrderFromGraphql(node);
    const orderId = String(order.id);
    const orderName = orderNameOf("order", order);
    items.push({ kind: "order", externalId: orderId, orderId, customerId, orderName, data: order });
    for (const fulfillment of restFulfillmentsFromGraphql(node))
      items.push({
        kind: "shipment",
        externalId: String(fulfillment.id),
        orderId,
        customerId,
        orderName,
        data: fulfillment,
      });
  }
  await tx.syncRecord.createMany({
    data: items.map(({ kind, externalId, orderId, customerId, orderName }) => ({
      shop,
      kind,
      externalId,
      orderId,
      customerId,
      orderName,
    })),
    skipDuplicates: true,
  });
  const records = await tx.syncRecord.findMany({
    where: {
      shop,
      OR: (["order", "shipment"] as const).map((kind) => ({
        kind,
        externalId: { in: items.filter((i) => i.kind === kind).map((i) => i.externalId) },
      })),
    },
    select: { id: true, kind: true, externalId: true, orderName: true },
  });
  const byKey = new Map(records.map((r) => [`${r.kind}:${r.externalId}`, r]));
  for (const item of items) {
    const record = byKey.get(`${item.kind}:${item.externalId}`)!;
    if (item.orderName && record.orderName !== item.orderName)
      await tx.syncRecord.update({ where: { id: record.id }, data: { orderName: item.orderName } });
  }
  // One statement for the batch's jobs, in order (their seq keeps an order's jobs in turn), the payloads as one JSON
  // parameter: a launch's jobs carry whole orders, and building them as query objects costs far more memory.
  const jobs = items.map((item) => ({
    kind: item.kind,
    orderKey: orderKeyOf(item.orderId),
    payload: { data: item.data, source: "backfill" },
    recordId: byKey.get(`${item.kind}:${item.externalId}`)!.id,
  }));
  await tx.$executeRaw`
    INSERT INTO "Job" (id, shop, kind, "orderKey", payload, "runAt", "recordId", "maxAttempts", "updatedAt")
    SELECT gen_random_uuid()::text, ${shop}, e.v->>'kind', e.v->>'orderKey', e.v->'payload', ${now},
           e.v->>'recordId', ${DEFAULT_MAX_ATTEMPTS}, ${now}
    FROM jsonb_array_elements(${JSON.stringify(jobs)}::jsonb) WITH ORDINALITY AS e(v, n)
    ORDER BY e.n`;
}
