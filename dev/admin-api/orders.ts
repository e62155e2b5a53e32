// Shopify's Admin GraphQL API for the sync's backfill, as MSW handlers over an order history (dev/demo-store by
// default): SyncBackfillOrders filtered by the `customer_id:` and `created_at:>=` search the backfill sends,
// paged with offset cursors, and SyncBackfillOrderLines; plus the customer lookups. The demo starts them in the
// app's process (dev/demo/admin-api-preload.ts); tests use them with msw/node's setupServer.
import { graphql, HttpResponse } from "msw";
import { DEMO_CURRENCY, DEMO_CUSTOMERS, orderHistory, type DemoCustomer, type PastOrder } from "../demo-store";

/** Every shop's Admin GraphQL endpoint, any API version. */
export const adminGraphqlLink = graphql.link(/^https:\/\/[^/]+\/admin\/api\/[^/]+\/graphql\.json$/);

const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;

export function graphqlOrder(order: PastOrder) {
  return {
    id: gid("Order", order.id),
    name: order.name,
    createdAt: order.createdAt,
    updatedAt: order.createdAt,
    currencyCode: DEMO_CURRENCY,
    cancelledAt: null,
    customer: { id: gid("Customer", order.customerId) },
    lineItems: {
      pageInfo: { hasNextPage: false, endCursor: null },
      nodes: order.lines.map((line) => ({
        id: gid("LineItem", line.id),
        title: line.product.title,
        name: line.product.title,
        quantity: line.quantity,
        currentQuantity: line.quantity,
        sku: line.product.sku,
        product: { id: gid("Product", line.product.id) },
      })),
    },
    fulfillments: order.fulfillment
      ? [
          {
            id: gid("Fulfillment", order.fulfillment.id),
            createdAt: order.fulfillment.createdAt,
            updatedAt: order.fulfillment.createdAt,
            status: "SUCCESS",
            trackingInfo: [{ company: order.fulfillment.company, number: order.fulfillment.number }],
            fulfillmentLineItems: { nodes: order.lines.map((line) => ({ quantity: line.quantity, lineItem: { id: gid("LineItem", line.id) } })) },
          },
        ]
      : [],
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
  return { id: gid("Customer", c.id), firstName: c.firstName, lastName: c.lastName, displayName: `${c.firstName} ${c.lastName}`, email: c.email, defaultEmailAddress: { emailAddress: c.email } };
}

export interface OrderHandlerOptions {
  orders?: () => PastOrder[];
  customers?: DemoCustomer[];
}

export function orderHandlers(options: OrderHandlerOptions = {}) {
  const orders = options.orders ?? (() => orderHistory());
  const customers = options.customers ?? DEMO_CUSTOMERS;
  return [
    adminGraphqlLink.query("SyncBackfillOrders", ({ variables }) => {
      const matching = orders()
        .filter((o) => matchesSearch(o, String(variables.query ?? "")))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const start = variables.after ? Number(variables.after) || 0 : 0;
      const first = Math.min(Math.max(Number(variables.first) || 50, 1), 250);
      const nodes = matching.slice(start, start + first).map(graphqlOrder);
      const end = start + nodes.length;
      return HttpResponse.json({
        data: {
          ordersCount: { count: matching.length },
          orders: { pageInfo: { hasNextPage: end < matching.length, endCursor: nodes.length ? String(end) : null }, nodes },
        },
      });
    }),
    adminGraphqlLink.query("SyncBackfillOrderLines", ({ variables }) => {
      const order = orders().find((o) => gid("Order", o.id) === variables.id);
      return HttpResponse.json({ data: { order: order ? { lineItems: graphqlOrder(order).lineItems } : null } });
    }),
    // A customer by id (`customer(id:)`) or all of them (`customers(first:)`), whatever the operation's name.
    adminGraphqlLink.operation(({ query, variables }) => {
      if (/\bcustomer\s*\(/.test(query)) {
        const found = customers.find((c) => gid("Customer", c.id) === variables.id);
        return HttpResponse.json({ data: { customer: found ? customerNode(found) : null } });
      }
      if (/\bcustomers\s*\(/.test(query)) {
        return HttpResponse.json({ data: { customers: { nodes: customers.map(customerNode), pageInfo: { hasNextPage: false, endCursor: null } } } });
      }
      return undefined;
    }),
  ];
}
