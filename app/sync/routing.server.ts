// Which workspace an order goes to: the one the ordering customer connected (CustomerGrant by shop + customer id).
import { Prisma, type PrismaClient } from "@prisma/client";
import { rawQuery } from "../db/sql.server";

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
  // Once per job: SQL, like the worker's other per-job statements (docs/decisions/0002).
  const [grant] = await rawQuery<RoutedGrant>(
    prisma,
    Prisma.sql`SELECT id, shop, "customerId", "workspaceId", status, "statusReason" FROM "CustomerGrant"
      WHERE shop = ${shop} AND "customerId" = ${customerId}`,
  );
  if (!grant) return { kind: "not_connected" };
  if (grant.status !== "active") return { kind: "needs_reconnect", grant };
  return { kind: "grant", grant };
}
