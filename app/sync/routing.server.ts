// Which workspace an order goes to: the one the ordering customer connected (CustomerGrant by shop + customer id).
import type { PrismaClient } from "@prisma/client";

export interface RoutedGrant {
  id: string;
  shop: string;
  customerId: string;
  workspaceId: string;
  status: string;
  statusReason: string | null;
}

export type Route =
  | { kind: "grant"; grant: RoutedGrant }
  | { kind: "not_connected"; reason: string }
  | { kind: "needs_reconnect"; grant: RoutedGrant; reason: string };

export const NOT_CONNECTED = "Customer has not connected a workspace. The order is imported as soon as they connect one.";

export function needsReconnectReason(statusReason: string | null): string {
  return `The customer's workspace connection must be reconnected${statusReason ? ` (${statusReason})` : ""}. Waiting for them to reconnect; nothing is lost.`;
}

export async function routeCustomer(prisma: PrismaClient, shop: string, customerId: string): Promise<Route> {
  const grant = await prisma.customerGrant.findUnique({
    where: { shop_customerId: { shop, customerId } },
    select: { id: true, shop: true, customerId: true, workspaceId: true, status: true, statusReason: true },
  });
  if (!grant) return { kind: "not_connected", reason: NOT_CONNECTED };
  if (grant.status !== "active") return { kind: "needs_reconnect", grant, reason: needsReconnectReason(grant.statusReason) };
  return { kind: "grant", grant };
}
