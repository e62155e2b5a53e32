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

/** Not routed: the reason code says why (app/sync/reasons.ts words it). */
export type Route =
  | { kind: "grant"; grant: RoutedGrant }
  | { kind: "not_connected" }
  | { kind: "needs_reconnect"; grant: RoutedGrant };

export async function routeCustomer(prisma: PrismaClient, shop: string, customerId: string): Promise<Route> {
  const grant = await prisma.customerGrant.findUnique({
    where: { shop_customerId: { shop, customerId } },
    select: { id: true, shop: true, customerId: true, workspaceId: true, status: true, statusReason: true },
  });
  if (!grant) return { kind: "not_connected" };
  if (grant.status !== "active") return { kind: "needs_reconnect", grant };
  return { kind: "grant", grant };
}
