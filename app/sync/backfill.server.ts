// When a customer connects: their orders of the last N days (ShopSettings.backfillDays, default 60) are fetched
// from the Admin GraphQL API, one page per job, and queued for import like webhook orders (the same mapper, the
// same content-derived idempotency keys, so an order that already came by webhook is not imported twice).
// Progress is the Backfill row: total (Shopify's count), queued, status.
import { readSections } from "../db/shop-settings.server";
import { errorMessage } from "../lib/errors";
import type { Job, Prisma, PrismaClient } from "@prisma/client";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { idString, orderKeyOf, orderNameOf } from "./mapping.server";
import type { ShopifyFulfillment, ShopifyOrder } from "./mapping.server";
import { enqueueJob } from "./queue.server";


const BACKFILL_PAGE_SIZE = 50;

export const BACKFILL_QUERY = `#graphql
query SyncBackfillOrders($first: Int!, $after: String, $query: String!) {
  ordersCount(query: $query, limit: null) { count }
  orders(first: $first, after: $after, query: $query, sortKey: CREATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id
      name
      createdAt
      updatedAt
      currencyCode
      cancelledAt
      customer { id }
      lineItems(first: 250) {
        pageInfo { hasNextPage endCursor }
        nodes { id title name quantity currentQuantity sku product { id } }
      }
      fulfillments(first: 50) {
        id
        createdAt
        updatedAt
        status
        trackingInfo(first: 1) { company number }
        fulfillmentLineItems(first: 250) { nodes { quantity lineItem { id } } }
      }
    }
  }
}`;

/** The rest of an order's lines when it has more than one page of them (the service takes up to 500). */
const ORDER_LINES_QUERY = `#graphql
query SyncBackfillOrderLines($id: ID!, $after: String) {
  order(id: $id) {
    lineItems(first: 250, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { id title name quantity currentQuantity sku product { id } }
    }
  }
}`;

type GqlLine = { id: string; title?: string; name?: string; quantity: number; currentQuantity?: number; sku?: string | null; product?: { id: string } | null };
type GqlLines = { pageInfo?: { hasNextPage: boolean; endCursor: string | null }; nodes: GqlLine[] };

interface GqlOrder {
  id: string;
  name?: string;
  createdAt: string;
  /** When Shopify last changed it: a snapshot older than content a webhook already brought is not sent. */
  updatedAt?: string;
  currencyCode?: string;
  cancelledAt?: string | null;
  customer?: { id: string } | null;
  lineItems?: GqlLines;
  fulfillments?: {
    id: string;
    createdAt: string;
    updatedAt?: string;
    status?: string;
    trackingInfo?: { company?: string | null; number?: string | null }[];
    fulfillmentLineItems?: { nodes: { quantity: number; lineItem: { id: string } }[] };
  }[];
}

interface GqlPage {
  data?: {
    ordersCount?: { count: number } | null;
    orders?: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: GqlOrder[] };
  };
  errors?: { message: string }[];
}

/** A GraphQL order in the REST webhook shape the mapper reads. */
function restOrderFromGraphql(node: GqlOrder): ShopifyOrder {
  return {
    id: idString(node.id),
    name: node.name,
    created_at: node.createdAt,
    updated_at: node.updatedAt ?? null,
    currency: node.currencyCode,
    cancelled_at: node.cancelledAt ?? null,
    customer: node.customer ? { id: idString(node.customer.id) } : null,
    line_items: (node.lineItems?.nodes ?? []).map((line) => ({
      id: idString(line.id),
      title: line.title ?? line.name,
      quantity: line.quantity,
      current_quantity: line.currentQuantity ?? line.quantity,
      sku: line.sku ?? null,
      product_id: line.product ? idString(line.product.id) : null,
    })),
  };
}

function restFulfillmentsFromGraphql(node: GqlOrder): ShopifyFulfillment[] {
  const orderId = idString(node.id);
  return (node.fulfillments ?? []).map((f) => ({
    id: idString(f.id),
    order_id: orderId,
    created_at: f.createdAt,
    updated_at: f.updatedAt ?? null,
    status: f.status?.toLowerCase() ?? null,
    tracking_company: f.trackingInfo?.[0]?.company ?? null,
    tracking_number: f.trackingInfo?.[0]?.number ?? null,
    line_items: (f.fulfillmentLineItems?.nodes ?? []).map((n) => ({ id: idString(n.lineItem.id), quantity: n.quantity })),
  }));
}

interface BackfillPayload {
  backfillId: string;
  customerId: string;
  since: string;
  cursor?: string | null;
}

/** Creates the Backfill row and its first page job. A backfill already running for this customer is reused. */
export async function startBackfill(
  prisma: PrismaClient,
  input: { shop: string; customerId: string; days?: number; now?: Date },
): Promise<string> {
  const now = input.now ?? new Date();
  const running = await prisma.backfill.findFirst({
    where: { shop: input.shop, customerId: input.customerId, status: "running" },
    select: { id: true },
  });
  if (running) return running.id;
  const settings = await readSections(prisma, input.shop, "sync");
  const days = input.days ?? settings?.backfillDays ?? 60;
  const since = new Date(now.getTime() - days * 86_400_000).toISOString();
  return prisma.$transaction(async (tx) => {
    const backfill = await tx.backfill.create({ data: { shop: input.shop, customerId: input.customerId, days } });
    const payload: BackfillPayload = { backfillId: backfill.id, customerId: input.customerId, since };
    await enqueueJob(tx, { shop: input.shop, kind: "backfill", payload, runAt: now, maxAttempts: 8 });
    return backfill.id;
  });
}

/** One page: fetch, queue its orders (and their fulfillments), then queue the next page or finish. */
export async function runBackfillJob(
  prisma: PrismaClient,
  job: Job,
  deps: { adminGraphql: AdminGraphql; now: () => Date },
): Promise<void> {
  const payload = job.payload as unknown as BackfillPayload;
  const search = `customer_id:${payload.customerId} created_at:>='${payload.since}'`;
  let page: GqlPage;
  try {
    page = (await deps.adminGraphql(job.shop, BACKFILL_QUERY, {
      first: BACKFILL_PAGE_SIZE,
      after: payload.cursor ?? null,
      query: search,
    })) as GqlPage;
    if (page.errors?.length) throw new Error(`Shopify Admin API: ${page.errors.map((e) => e.message).join("; ")}`);
    if (!page.data?.orders) throw new Error("Shopify Admin API returned no orders field");
    for (const node of page.data.orders.nodes) await completeLines(job.shop, node, deps.adminGraphql);
  } catch (error) {
    // A bare network error says only "fetch failed" (undici) or "Failed to fetch": name what could not be reached.
    const unreachable = error instanceof TypeError && /fetch/i.test(error.message);
    const message = unreachable ? "Shopify's Admin API could not be reached" : errorMessage(error);
    await prisma.backfill.update({
      where: { id: payload.backfillId },
      data:
        job.attempts >= job.maxAttempts
          ? { status: "failed", error: `Could not fetch past orders: ${message}`, finishedAt: deps.now() }
          : { error: `Retrying: ${message}` },
    });
    throw error;
  }
  const orders = page.data!.orders!;
  const now = deps.now();
  await prisma.$transaction(async (tx) => {
    for (const node of orders.nodes) {
      const order = restOrderFromGraphql(node);
      const orderId = String(order.id);
      const orderName = orderNameOf("order", order);
      const record = await upsertRecord(tx, job.shop, "order", orderId, orderId, payload.customerId, orderName);
      await enqueueJob(tx, { shop: job.shop, kind: "order", orderKey: orderKeyOf(orderId), payload: { data: order, source: "backfill" }, recordId: record, runAt: now });
      for (const fulfillment of restFulfillmentsFromGraphql(node)) {
        const id = String(fulfillment.id);
        const shipment = await upsertRecord(tx, job.shop, "shipment", id, orderId, payload.customerId, orderName);
        await enqueueJob(tx, { shop: job.shop, kind: "shipment", orderKey: orderKeyOf(orderId), payload: { data: fulfillment, source: "backfill" }, recordId: shipment, runAt: now });
      }
    }
    const count = page.data?.ordersCount?.count;
    const more = orders.pageInfo.hasNextPage && orders.pageInfo.endCursor;
    await tx.backfill.update({
      where: { id: payload.backfillId },
      data: {
        queued: { increment: orders.nodes.length },
        ...(typeof count === "number" && !payload.cursor ? { total: count } : {}),
        ...(more ? {} : { status: "done", finishedAt: now, error: null }),
      },
    });
    if (!more) {
      // No count from Shopify: the total is what was found.
      const row = await tx.backfill.findUniqueOrThrow({ where: { id: payload.backfillId } });
      if (row.total < row.queued) await tx.backfill.update({ where: { id: row.id }, data: { total: row.queued } });
    } else {
      const next: BackfillPayload = { ...payload, cursor: orders.pageInfo.endCursor };
      await enqueueJob(tx, { shop: job.shop, kind: "backfill", payload: next, runAt: now, maxAttempts: job.maxAttempts });
    }
  });
}

/** Fetches the remaining pages of an order's lines, so an order over 250 lines is not imported cut short. */
async function completeLines(shop: string, node: GqlOrder, adminGraphql: AdminGraphql): Promise<void> {
  let pageInfo = node.lineItems?.pageInfo;
  for (let guard = 0; pageInfo?.hasNextPage && pageInfo.endCursor && guard < 10; guard++) {
    const more = (await adminGraphql(shop, ORDER_LINES_QUERY, { id: node.id, after: pageInfo.endCursor })) as {
      data?: { order?: { lineItems?: GqlLines } | null };
      errors?: { message: string }[];
    };
    if (more.errors?.length) throw new Error(`Shopify Admin API: ${more.errors.map((e) => e.message).join("; ")}`);
    const lines = more.data?.order?.lineItems;
    if (!lines) throw new Error("Shopify Admin API returned no line items for an order");
    node.lineItems!.nodes.push(...lines.nodes);
    pageInfo = lines.pageInfo;
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
