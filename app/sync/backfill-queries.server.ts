// The backfill's side of Shopify's Admin GraphQL API (the runner is backfill.server.ts): the queries, sized to stay
// under Shopify's single-query cost limit, one page of a customer's orders made complete by follow-up queries, and
// the GraphQL answer turned into the REST webhook shape the mapper reads.
import {
  budgetedQuery,
  MaxCostExceeded,
  type BudgetedDeps,
  type GraphqlAnswer,
} from "../shopify/admin-cost-budget.server";
import { idString, type ShopifyFulfillment, type ShopifyOrder } from "./mapping.server";

/**
 * The sizes every backfill query asks for, chosen to stay under Shopify's single-query cost limit (1,000 points by
 * its rules: an object 1, a connection 2 + first x one node). A page of orders asks for 693 points (5 orders x
 * (order, customer, 20 lines with their product, 2 fulfillments of 20 lines)); an order's further lines, its
 * further fulfillments and their further lines come in follow-up queries. MAX_COST_EXCEEDED halves them.
 */
export const BACKFILL_SIZES = { first: 5, lines: 20, fulfillments: 2, fulfillmentLines: 20 };
export const FOLLOW_UP_LINES = 250;
export const FOLLOW_UP_FULFILLMENTS = 200;

export const BACKFILL_QUERY = `#graphql
query SyncBackfillOrders($first: Int!, $after: String, $query: String!, $lines: Int!, $fulfillments: Int!, $fulfillmentLines: Int!) {
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
      lineItems(first: $lines) {
        pageInfo { hasNextPage endCursor }
        nodes { id title name quantity currentQuantity sku product { id } }
      }
      fulfillments(first: $fulfillments) {
        id
        createdAt
        updatedAt
        status
        trackingInfo(first: 1) { company number }
        fulfillmentLineItems(first: $fulfillmentLines) {
          pageInfo { hasNextPage endCursor }
          nodes { quantity lineItem { id } }
        }
      }
    }
  }
}`;

/** The rest of an order's lines when it has more than the page gave (the service takes up to 500). */
export const ORDER_LINES_QUERY = `#graphql
query SyncBackfillOrderLines($id: ID!, $first: Int!, $after: String) {
  order(id: $id) {
    lineItems(first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { id title name quantity currentQuantity sku product { id } }
    }
  }
}`;

/** All of an order's fulfillments (Order.fulfillments is a list, not a connection), without their lines. */
export const ORDER_FULFILLMENTS_QUERY = `#graphql
query SyncBackfillOrderFulfillments($id: ID!, $first: Int!) {
  order(id: $id) {
    fulfillments(first: $first) {
      id
      createdAt
      updatedAt
      status
      trackingInfo(first: 1) { company number }
    }
  }
}`;

/** A fulfillment's lines past those the page gave. */
export const FULFILLMENT_LINES_QUERY = `#graphql
query SyncBackfillFulfillmentLines($id: ID!, $first: Int!, $after: String) {
  fulfillment(id: $id) {
    fulfillmentLineItems(first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { quantity lineItem { id } }
    }
  }
}`;

/** Every query the backfill sends, with the largest sizes it sends it with (a test prices each one). */
export const BACKFILL_QUERIES = [
  { query: BACKFILL_QUERY, variables: { ...BACKFILL_SIZES, after: "x", query: "customer_id:1" } },
  { query: ORDER_LINES_QUERY, variables: { id: "gid://shopify/Order/1", first: FOLLOW_UP_LINES, after: "x" } },
  { query: ORDER_FULFILLMENTS_QUERY, variables: { id: "gid://shopify/Order/1", first: FOLLOW_UP_FULFILLMENTS } },
  {
    query: FULFILLMENT_LINES_QUERY,
    variables: { id: "gid://shopify/Fulfillment/1", first: FOLLOW_UP_LINES, after: "x" },
  },
];

type GqlLine = {
  id: string;
  title?: string;
  name?: string;
  quantity: number;
  currentQuantity?: number;
  sku?: string | null;
  product?: { id: string } | null;
};
type GqlLines = { pageInfo?: { hasNextPage: boolean; endCursor: string | null }; nodes: GqlLine[] };

export interface GqlOrder {
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
    fulfillmentLineItems?: GqlFulfillmentLines;
  }[];
}

type GqlFulfillmentLines = {
  pageInfo?: { hasNextPage: boolean; endCursor: string | null };
  nodes: { quantity: number; lineItem: { id: string } }[];
};

interface GqlPage {
  data?: {
    ordersCount?: { count: number } | null;
    orders?: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: GqlOrder[] };
  };
  errors?: { message: string }[];
}

/** A GraphQL order in the REST webhook shape the mapper reads. */
export function restOrderFromGraphql(node: GqlOrder): ShopifyOrder {
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

export function restFulfillmentsFromGraphql(node: GqlOrder): ShopifyFulfillment[] {
  const orderId = idString(node.id);
  return (node.fulfillments ?? []).map((f) => ({
    id: idString(f.id),
    order_id: orderId,
    created_at: f.createdAt,
    updated_at: f.updatedAt ?? null,
    status: f.status?.toLowerCase() ?? null,
    tracking_company: f.trackingInfo?.[0]?.company ?? null,
    tracking_number: f.trackingInfo?.[0]?.number ?? null,
    line_items: (f.fulfillmentLineItems?.nodes ?? []).map((n) => ({
      id: idString(n.lineItem.id),
      quantity: n.quantity,
    })),
  }));
}

/** Which page of whose orders: the customer, since when, after which cursor, at which sizes. */
export interface PageRequest {
  customerId: string;
  since: string;
  cursor?: string | null;
  /** Smaller sizes once Shopify refused a page as too costly. */
  sizes?: typeof BACKFILL_SIZES;
}

/** A page of orders with every line and fulfillment, Shopify's count of them all, and the sizes that were asked. */
export interface FetchedPage {
  orders: NonNullable<NonNullable<GqlPage["data"]>["orders"]>;
  count: number | undefined;
  sizes: typeof BACKFILL_SIZES;
}

/** One page of the customer's orders, halved while Shopify says it costs too much, each order then completed. */
export async function fetchOrdersPage(deps: BudgetedDeps, shop: string, request: PageRequest): Promise<FetchedPage> {
  const search = `customer_id:${request.customerId} created_at:>='${request.since}'`;
  let page: GqlPage;
  let sizes = request.sizes ?? BACKFILL_SIZES;
  for (;;) {
    try {
      page = (await budgetedQuery(deps, shop, BACKFILL_QUERY, {
        ...sizes,
        after: request.cursor ?? null,
        query: search,
      })) as GqlPage;
      break;
    } catch (error) {
      const smaller = error instanceof MaxCostExceeded ? halved(sizes) : null;
      if (!smaller) throw error;
      sizes = smaller;
    }
  }
  const error = adminErrors(page);
  if (error) throw error;
  if (!page.data?.orders) throw new Error("Shopify Admin API returned no orders field");
  for (const node of page.data.orders.nodes) {
    await completeLines(deps, shop, node);
    await completeFulfillments(deps, shop, node, sizes.fulfillments);
  }
  return { orders: page.data.orders, count: page.data.ordersCount?.count, sizes };
}

/** Half of each size, down to one; null when nothing is left to halve. */
function halved(sizes: typeof BACKFILL_SIZES): typeof BACKFILL_SIZES | null {
  if (sizes.first > 1) return { ...sizes, first: Math.floor(sizes.first / 2) };
  const smaller = {
    first: 1,
    lines: Math.max(1, sizes.lines >> 1),
    fulfillments: Math.max(1, sizes.fulfillments >> 1),
    fulfillmentLines: Math.max(1, sizes.fulfillmentLines >> 1),
  };
  return JSON.stringify(smaller) === JSON.stringify(sizes) ? null : smaller;
}

function adminErrors(answer: GraphqlAnswer): Error | null {
  return answer.errors?.length
    ? new Error(`Shopify Admin API: ${answer.errors.map((e) => e.message).join("; ")}`)
    : null;
}

/** A follow-up query sized `first`, halved while Shopify says it costs too much. */
async function followUp(
  deps: BudgetedDeps,
  shop: string,
  query: string,
  variables: Record<string, unknown>,
  first: number,
): Promise<GraphqlAnswer> {
  for (let size = first; ; size = Math.floor(size / 2)) {
    try {
      const answer = await budgetedQuery(deps, shop, query, { ...variables, first: size });
      const error = adminErrors(answer);
      if (error) throw error;
      return answer;
    } catch (error) {
      if (!(error instanceof MaxCostExceeded) || size <= 1) throw error;
    }
  }
}

const MAX_FOLLOW_UPS = 20;

/** Fetches the remaining pages of an order's lines, so an order over a page of lines is not imported cut short. */
async function completeLines(deps: BudgetedDeps, shop: string, node: GqlOrder): Promise<void> {
  let pageInfo = node.lineItems?.pageInfo;
  for (let guard = 0; pageInfo?.hasNextPage && pageInfo.endCursor && guard < MAX_FOLLOW_UPS; guard++) {
    const more = (await followUp(
      deps,
      shop,
      ORDER_LINES_QUERY,
      { id: node.id, after: pageInfo.endCursor },
      FOLLOW_UP_LINES,
    )) as {
      data?: { order?: { lineItems?: GqlLines } | null };
    };
    const lines = more.data?.order?.lineItems;
    if (!lines) throw new Error("Shopify Admin API returned no line items for an order");
    node.lineItems!.nodes.push(...lines.nodes);
    pageInfo = lines.pageInfo;
  }
}

/** Fetches an order's fulfillments past the page's few, and every fulfillment's lines past the page's. */
async function completeFulfillments(deps: BudgetedDeps, shop: string, node: GqlOrder, asked: number): Promise<void> {
  const fulfillments = node.fulfillments ?? [];
  if (fulfillments.length >= asked) {
    const all = (await followUp(deps, shop, ORDER_FULFILLMENTS_QUERY, { id: node.id }, FOLLOW_UP_FULFILLMENTS)) as {
      data?: { order?: { fulfillments?: NonNullable<GqlOrder["fulfillments"]> } | null };
    };
    const list = all.data?.order?.fulfillments;
    if (!list) throw new Error("Shopify Admin API returned no fulfillments for an order");
    const known = new Map(fulfillments.map((f) => [f.id, f]));
    node.fulfillments = list.map(
      (f) =>
        known.get(f.id) ?? {
          ...f,
          fulfillmentLineItems: { pageInfo: { hasNextPage: true, endCursor: null }, nodes: [] },
        },
    );
  }
  for (const f of node.fulfillments ?? []) {
    let pageInfo = f.fulfillmentLineItems?.pageInfo;
    for (let guard = 0; pageInfo?.hasNextPage && guard < MAX_FOLLOW_UPS; guard++) {
      const more = (await followUp(
        deps,
        shop,
        FULFILLMENT_LINES_QUERY,
        { id: f.id, after: pageInfo.endCursor },
        FOLLOW_UP_LINES,
      )) as {
        data?: { fulfillment?: { fulfillmentLineItems?: GqlFulfillmentLines } | null };
      };
      const lines = more.data?.fulfillment?.fulfillmentLineItems;
      if (!lines) throw new Error("Shopify Admin API returned no lines for a fulfillment");
      f.fulfillmentLineItems = {
        pageInfo: lines.pageInfo,
        nodes: [...(f.fulfillmentLineItems?.nodes ?? []), ...lines.nodes],
      };
      pageInfo = lines.pageInfo;
    }
  }
}
