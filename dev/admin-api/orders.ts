// Shopify's Admin GraphQL API for the sync's backfill, as MSW handlers over an order history (dev/demo-store by
// default): SyncBackfillOrders filtered by the `customer_id:` and `created_at:>=` search the backfill sends,
// paged with offset cursors, each order's lines and fulfillments cut to the sizes the query asks for (as Shopify
// does), and the follow-up queries for an order's further lines, fulfillments and fulfillment lines; plus the
// customer lookups. Every query is priced and throttled by Shopify's rules (cost.ts). The demo starts them in the
// app's process (dev/demo/admin-api-preload.ts); tests use them with msw/node's setupServer.
import { graphql } from "msw";
import { DEMO_CURRENCY, DEMO_CUSTOMERS, orderHistory, type DemoCustomer, type PastOrder } from "../demo-store";
import { costed, QueryCostLimiter } from "./cost";

/** Every shop's Admin GraphQL endpoint, any API version. */
export const adminGraphqlLink = graphql.link(/^https:\/\/[^/]+\/admin\/api\/[^/]+\/graphql\.json$/);

const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;

/** A page of `items` as a connection: `first` from the offset cursor `after`. */
function page<T>(items: T[], first: unknown, after: unknown) {
  const start = typeof after === "string" && /^\d+$/.test(after) ? Number(after) : 0;
  const size = typeof first === "number" ? first : 0;
  const nodes = items.slice(start, start + size);
  const end = start + nodes.length;
  return { pageInfo: { hasNextPage: end < items.length, endCursor: nodes.length ? String(end) : null }, nodes };
}

const lineNode = (line: PastOrder["lines"][number]) => ({
  id: gid("LineItem", line.id),
  title: line.product.title,
  name: line.product.title,
  quantity: line.quantity,
  currentQuantity: line.quantity,
  sku: line.product.sku,
  product: { id: gid("Product", line.product.id) },
});

function fulfillmentNode(order: PastOrder, fulfillmentLines: unknown, after: unknown = null) {
  const f = order.fulfillment!;
  return {
    id: gid("Fulfillment", f.id),
    createdAt: f.createdAt,
    updatedAt: f.createdAt,
    status: "SUCCESS",
    trackingInfo: [{ company: f.company, number: f.number }],
    fulfillmentLineItems: page(
      order.lines.map((line) => ({
        id: gid("FulfillmentLineItem", line.id),
        quantity: line.quantity,
        lineItem: { id: gid("LineItem", line.id) },
      })),
      fulfillmentLines,
      after,
    ),
  };
}

export interface OrderSizes {
  lines: unknown;
  fulfillments: unknown;
  fulfillmentLines: unknown;
}

/** An order as SyncBackfillOrders answers it, with at most the lines and fulfillments the query asks for. */
export function graphqlOrder(
  order: PastOrder,
  sizes: OrderSizes = { lines: 250, fulfillments: 250, fulfillmentLines: 250 },
) {
  const fulfillments = order.fulfillment ? [fulfillmentNode(order, sizes.fulfillmentLines)] : [];
  return {
    id: gid("Order", order.id),
    name: order.name,
    createdAt: order.createdAt,
    updatedAt: order.createdAt,
    currencyCode: DEMO_CURRENCY,
    cancelledAt: null,
    customer: { id: gid("Customer", order.customerId) },
    lineItems: page(order.lines.map(lineNode), sizes.lines, null),
    fulfillments: fulfillments.slice(0, typeof sizes.fulfillments === "number" ? sizes.fulfillments : 0),
  };
}

/** The parts of Shopify's search syntax the backfill uses: `customer_id:<id> created_at:>='<iso>'`. */
export function matchesSearch(order: PastOrder, search: string): boolean {
  const customer = /customer_id:(\d+)/.exec(search)?.[1];
  const since = /created_at:>=\s*'?([^'\s]+)'?/.exec(search)?.[1];
  if (customer && order.customerId !== customer) return false;
  if (since && Date.parse(order.createdAt) < Date.parse(since)) return false;
  return true;
}

function customerNode(c: DemoCustomer) {
  return {
    id: gid("Customer", c.id),
    firstName: c.firstName,
    lastName: c.lastName,
    displayName: `${c.firstName} ${c.lastName}`,
    email: c.email,
    defaultEmailAddress: { emailAddress: c.email },
  };
}

export interface OrderHandlerOptions {
  orders?: () => PastOrder[];
  customers?: DemoCustomer[];
  /** The shops' query cost buckets (a standard plan's by default). */
  limiter?: QueryCostLimiter;
}

export function orderHandlers(options: OrderHandlerOptions = {}) {
  const orders = options.orders ?? (() => orderHistory());
  const customers = options.customers ?? DEMO_CUSTOMERS;
  const limiter = options.limiter ?? new QueryCostLimiter();
  const findOrder = (id: unknown) => orders().find((o) => gid("Order", o.id) === id);
  return [
    adminGraphqlLink.query("SyncBackfillOrders", (info) =>
      costed(limiter, info, () => {
        const { variables } = info;
        const matching = orders()
          .filter((o) => matchesSearch(o, String(variables.query ?? "")))
          .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
        const { pageInfo, nodes } = page(matching, variables.first, variables.after);
        return {
          data: {
            ordersCount: { count: matching.length },
            orders: {
              pageInfo,
              nodes: nodes.map((o) =>
                graphqlOrder(o, {
                  lines: variables.lines,
                  fulfillments: variables.fulfillments,
                  fulfillmentLines: variables.fulfillmentLines,
                }),
              ),
            },
          },
        };
      }),
    ),
    adminGraphqlLink.query("SyncBackfillOrderLines", (info) =>
      costed(limiter, info, () => {
        const order = findOrder(info.variables.id);
        return {
          data: {
            order: order
              ? { lineItems: page(order.lines.map(lineNode), info.variables.first, info.variables.after) }
              : null,
          },
        };
      }),
    ),
    adminGraphqlLink.query("SyncBackfillOrderFulfillments", (info) =>
      costed(limiter, info, () => {
        const order = findOrder(info.variables.id);
        const list = order?.fulfillment
          ? [fulfillmentNode(order, 0)].map(({ fulfillmentLineItems: _, ...f }) => f)
          : [];
        return { data: { order: order ? { fulfillments: list.slice(0, Number(info.variables.first) || 0) } : null } };
      }),
    ),
    adminGraphqlLink.query("SyncBackfillFulfillmentLines", (info) =>
      costed(limiter, info, () => {
        const order = orders().find((o) => o.fulfillment && gid("Fulfillment", o.fulfillment.id) === info.variables.id);
        const node = order ? fulfillmentNode(order, info.variables.first, info.variables.after) : null;
        return { data: { fulfillment: node ? { fulfillmentLineItems: node.fulfillmentLineItems } : null } };
      }),
    ),
    // A customer by id (`customer(id:)`) or all of them (`customers(first:)`), whatever the operation's name.
    adminGraphqlLink.operation((info) => {
      const { query, variables } = info;
      if (/\bcustomer\s*\(/.test(query)) {
        const found = customers.find((c) => gid("Customer", c.id) === variables.id);
        return costed(limiter, info, () => ({ data: { customer: found ? customerNode(found) : null } }));
      }
      if (/\bcustomers\s*\(/.test(query)) {
        return costed(limiter, info, () => ({
          data: {
            customers: { nodes: customers.map(customerNode), pageInfo: { hasNextPage: false, endCursor: null } },
          },
        }));
      }
      return undefined;
    }),
  ];
}
