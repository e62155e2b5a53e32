// Durable intake of Shopify webhooks: a delivery is recorded before Shopify gets its 200, and a redelivery of
// the same event (same X-Shopify-Event-Id) is recorded once. Processing happens later, in the worker.
import type { Prisma, PrismaClient } from "@prisma/client";

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
}

/** Records the delivery (once per event id) and lets `andThen` enqueue work in the same transaction. */
export async function recordDelivery(
  prisma: PrismaClient,
  delivery: Delivery,
  andThen?: (tx: Prisma.TransactionClient, deliveryId: string) => Promise<void>,
): Promise<IntakeResult> {
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
    if (andThen) await andThen(tx, inserted[0].id);
    return { deliveryId: inserted[0].id, duplicate: false };
  });
}
