// customers/data_request: everything the app holds about one customer of a shop, gathered into a DataRequest row
// the merchant downloads from the admin (Privacy page) and passes on. Rows stay listed until marked handled;
// retention removes handled ones after the shop's period, customers/redact and shop/redact erase them.
// Token material is never part of an export (it is the service's credential, not the customer's data).
import type { Prisma, PrismaClient } from "@prisma/client";
import { customerOrderIds } from "./compliance.server";

export interface DataRequestInput {
  shop: string;
  customerId: string;
  /** Shopify's data_request.id; a redelivery carries the same one and adds nothing. */
  requestId: string;
  ordersRequested: string[];
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** What the app holds about the customer right now, as plain JSON. */
export async function buildCustomerExport(
  prisma: PrismaClient,
  shop: string,
  customerId: string,
  requested: string[],
  now = new Date(),
) {
  const orderIds = [...new Set([...requested, ...(await customerOrderIds(prisma, shop, customerId))])];
  const [grant, connections, records, backfills, handoffs] = await Promise.all([
    prisma.customerGrant.findUnique({ where: { shop_customerId: { shop, customerId } } }),
    prisma.oAuthState.findMany({ where: { shop, customerId }, orderBy: { createdAt: "asc" } }),
    prisma.syncRecord.findMany({
      where: { shop, OR: [{ customerId }, { orderId: { in: orderIds } }] },
      orderBy: { createdAt: "asc" },
    }),
    prisma.backfill.findMany({ where: { shop, customerId }, orderBy: { createdAt: "asc" } }),
    prisma.cartHandoff.findMany({ where: { shop, customerId }, orderBy: { createdAt: "asc" } }),
  ]);
  const orders = [...new Set([...orderIds, ...records.map((r) => r.orderId)])];
  const deliveries = orders.length
    ? await prisma.$queryRaw<{ topic: string; receivedAt: Date; payload: unknown }[]>`
        SELECT topic, "receivedAt", payload FROM "WebhookDelivery"
        WHERE shop = ${shop} AND (payload->>'id' = ANY(${orders}::text[]) OR payload->>'order_id' = ANY(${orders}::text[]))
        ORDER BY "receivedAt"`
    : [];
  return {
    generatedAt: now.toISOString(),
    shop,
    customerId,
    connection: grant && {
      customerName: grant.customerName,
      customerEmail: grant.customerEmail,
      workspaceId: grant.workspaceId,
      scopes: grant.scopes.split(" ").filter(Boolean),
      status: grant.status,
      statusReason: grant.statusReason,
      connectedAt: iso(grant.connectedAt),
      lastUsedAt: iso(grant.lastUsedAt),
    },
    connectionAttempts: connections.map((c) => ({
      customerName: c.customerName,
      customerEmail: c.customerEmail,
      startedAt: iso(c.createdAt),
      expiresAt: iso(c.expiresAt),
      completed: Boolean(c.usedAt),
    })),
    imports: records.map((r) => ({
      kind: r.kind,
      shopifyId: r.externalId,
      orderId: r.orderId,
      state: r.state,
      reason: r.reason,
      workspaceId: r.workspaceId,
      serviceId: r.serviceId,
      attempts: r.attempts,
      importedAt: iso(r.importedAt),
      createdAt: iso(r.createdAt),
    })),
    storedWebhookData: deliveries.map((d) => ({ topic: d.topic, receivedAt: iso(d.receivedAt), fields: d.payload })),
    pastOrderImports: backfills.map((b) => ({
      days: b.days,
      status: b.status,
      ordersQueued: b.queued,
      startedAt: iso(b.createdAt),
    })),
    cartHandoffs: handoffs.map((h) => ({
      createdAt: iso(h.createdAt),
      state: h.state,
      lineCount: h.lineCount,
      totalMinor: h.totalMinor.toString(),
      currency: h.currency,
      lines: h.lines,
      expiresAt: iso(h.expiresAt),
    })),
  };
}

/** Records the request with its export; a redelivery (same request id) changes nothing. */
export async function recordDataRequest(
  prisma: PrismaClient,
  input: DataRequestInput,
  now = new Date(),
): Promise<{ id: string; duplicate: boolean }> {
  const existing = await prisma.dataRequest.findUnique({
    where: { shop_requestId: { shop: input.shop, requestId: input.requestId } },
    select: { id: true },
  });
  if (existing) return { id: existing.id, duplicate: true };
  const data = await buildCustomerExport(prisma, input.shop, input.customerId, input.ordersRequested, now);
  const created = await prisma.dataRequest.createManyAndReturn({
    data: [
      {
        shop: input.shop,
        customerId: input.customerId,
        requestId: input.requestId,
        ordersRequested: input.ordersRequested,
        export: data as unknown as Prisma.InputJsonValue,
        createdAt: now,
      },
    ],
    skipDuplicates: true,
    select: { id: true },
  });
  if (created.length === 1) return { id: created[0].id, duplicate: false };
  const raced = await prisma.dataRequest.findUniqueOrThrow({
    where: { shop_requestId: { shop: input.shop, requestId: input.requestId } },
    select: { id: true },
  });
  return { id: raced.id, duplicate: true };
}

export interface OpenDataRequest {
  id: string;
  customerId: string;
  requestedAt: string;
  ordersRequested: string[];
  export: unknown;
}

/** The Privacy page: requests not yet marked handled, oldest first. */
export async function listOpenDataRequests(prisma: PrismaClient, shop: string): Promise<OpenDataRequest[]> {
  const rows = await prisma.dataRequest.findMany({
    where: { shop, handledAt: null },
    orderBy: { createdAt: "asc" },
    take: 100,
  });
  return rows.map((r) => ({
    id: r.id,
    customerId: r.customerId,
    requestedAt: r.createdAt.toISOString(),
    ordersRequested: Array.isArray(r.ordersRequested) ? r.ordersRequested.map(String) : [],
    export: r.export,
  }));
}

/** Scoped by shop: another shop's request id is simply not found. */
export async function markDataRequestHandled(
  prisma: PrismaClient,
  shop: string,
  id: string,
  now = new Date(),
): Promise<boolean> {
  if (id.includes("\u0000")) return false;
  const result = await prisma.dataRequest.updateMany({
    where: { id, shop, handledAt: null },
    data: { handledAt: now },
  });
  return result.count === 1;
}
