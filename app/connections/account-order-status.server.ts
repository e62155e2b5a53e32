// The customer account's order status block (extensions/workspace-account): whether an order and its shipments
// reached the customer's workspace, from the sync's records, in plain states; only for the session token's own
// customer (app/callers/customer-account.server.ts).
import type { PrismaClient } from "@prisma/client";

/** Plain states the shopper sees for an order or a shipment: never the app's internal codes. */
export type DeliveryState = "sent" | "waiting" | "failed" | "not_sent";

export type OrderStatus =
  | { status: "unknown" }
  | { status: "known"; orderName: string | null; order: DeliveryState; shipments: DeliveryState[] };

const deliveryState = (state: string): DeliveryState =>
  state === "imported" || state === "updated"
    ? "sent"
    : state === "failed"
      ? "failed"
      : state === "skipped"
        ? "not_sent"
        : "waiting";

const ORDER_ID = /^[1-9][0-9]{0,19}$/;

/**
 * Whether an order and its shipments reached the customer's workspace. Answered only when the order is this
 * customer's: another customer's order, an order of another shop and an unknown one all get the same "unknown".
 */
export async function accountOrderStatus(
  prisma: PrismaClient,
  shop: string,
  customerId: string,
  orderId: string,
): Promise<OrderStatus> {
  const unknown = { status: "unknown" } as const;
  const id = orderId.replace(/^gid:\/\/shopify\/Order\//, "");
  if (!ORDER_ID.test(id)) return unknown;
  const order = await prisma.syncRecord.findFirst({
    where: { shop, kind: "order", externalId: id, customerId },
    select: { state: true, orderName: true },
  });
  if (!order) return unknown;
  const shipments = await prisma.syncRecord.findMany({
    where: { shop, kind: "shipment", orderId: id },
    select: { state: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: 50,
  });
  return {
    status: "known",
    orderName: order.orderName,
    order: deliveryState(order.state),
    shipments: shipments.map((s) => deliveryState(s.state)),
  };
}
