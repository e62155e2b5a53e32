// Shopify prices every Admin GraphQL query before running it and refuses one over 1,000 points (MAX_COST_EXCEEDED);
// the stand-in prices by the same published rules. Every query the app sends is priced here at the largest sizes
// the app sends it with, and the stand-in's refusals, throttling and `extensions.cost` are held to Shopify's.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueryCostLimiter, requestedQueryCost, actualQueryCost } from "../../dev/admin-api/cost";
import { orderHandlers } from "../../dev/admin-api/orders";
import { THEME_SETTINGS_QUERY } from "~/admin/theme-setup.server";
import { CUSTOMER_ACCOUNTS_QUERY } from "~/connections/account-root.server";
import { CUSTOMER_PROFILE_QUERY } from "~/connections/customer-profile.server";
import { CART_PRICES_QUERY } from "~/handoff/market-prices.server";
import { FLOW_TRIGGER_MUTATION } from "~/sync/flow-trigger.server";
import { CART_VARIANTS_QUERY, MAX_LINES } from "~/handoff/resolver.server";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { BACKFILL_QUERIES, BACKFILL_QUERY } from "~/sync/backfill-queries.server";
import {
  BULK_OPERATION_QUERY,
  BULK_ORDERS_QUERY,
  BULK_RUN_MUTATION,
  bulkOrdersQuery,
} from "~/sync/bulk-queries.server";
import { bulkQueryProblems } from "../../dev/admin-api/bulk-query";

/** Every query the app sends, at the largest sizes it sends it with. */
const APP_QUERIES: { query: string; variables: Record<string, unknown> }[] = [
  ...BACKFILL_QUERIES,
  {
    query: CART_VARIANTS_QUERY,
    variables: { ids: Array.from({ length: MAX_LINES }, (_, i) => `gid://shopify/ProductVariant/${i}`) },
  },
  { query: CUSTOMER_PROFILE_QUERY, variables: { id: "gid://shopify/Customer/1" } },
  { query: CUSTOMER_ACCOUNTS_QUERY, variables: {} },
  { query: THEME_SETTINGS_QUERY, variables: {} },
  { query: FLOW_TRIGGER_MUTATION, variables: { handle: "order-import-needs-attention", payload: {} } },
  { query: BULK_RUN_MUTATION, variables: { query: bulkOrdersQuery(new Date(0)) } },
  { query: BULK_OPERATION_QUERY, variables: { id: "gid://shopify/BulkOperation/1" } },
];

const operationName = (query: string) => /\b(query|mutation)\s+(\w+)/.exec(query)?.[2];

/** Queries the app sends to the Storefront API, not the Admin API (its own limits): not priced here. */
const STOREFRONT_QUERIES = new Set([operationName(CART_PRICES_QUERY)]);
/** Queries Shopify runs in bulk (bulkOperationRunQuery's argument): not charged, held to the bulk rules instead. */
const BULK_QUERIES = new Set([operationName(BULK_ORDERS_QUERY)]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory()
      ? sourceFiles(file)
      : /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)
        ? [file]
        : [];
  });
}

describe("the Admin API's calculated query cost", () => {
  it("prices by Shopify's rules: scalars 0, an object 1, a connection 2 + first x one node", () => {
    expect(requestedQueryCost("query { shop { id name currencyCode } }")).toBe(1);
    expect(requestedQueryCost("query { products(first: 10) { nodes { id title } } }")).toBe(12);
    expect(
      requestedQueryCost("query { products(first: 10) { edges { node { id variants(first: 5) { nodes { id } } } } } }"),
    ).toBe(2 + 10 * (1 + 2 + 5));
    expect(
      requestedQueryCost("query Q($n: Int!) { orders(first: $n) { nodes { id customer { id } } } }", { n: 50 }),
    ).toBe(102);
    expect(
      requestedQueryCost("query Q($ids: [ID!]!) { nodes(ids: $ids) { ... on ProductVariant { id product { id } } } }", {
        ids: ["a", "b", "c"],
      }),
    ).toBe(6);
    expect(() => requestedQueryCost("query { orders { nodes { id } } }")).toThrow(/first or last/);
    // The backfill query as it was (50 orders x 250 lines x 50 fulfillments x 250 lines): far over the limit.
    const old = BACKFILL_QUERY.replace("$first: Int!, ", "")
      .replace(/\(first: \$first/, "(first: 50")
      .replace("lineItems(first: $lines)", "lineItems(first: 250)")
      .replace("fulfillments(first: $fulfillments)", "fulfillments(first: 50)")
      .replace("fulfillmentLineItems(first: $fulfillmentLines)", "fulfillmentLineItems(first: 250)");
    expect(requestedQueryCost(old, { query: "x" })).toBeGreaterThan(1_000_000);
  });

  it("counts the nodes actually returned for the actual cost", () => {
    const query = "query { orders(first: 10) { nodes { id customer { id } } } }";
    expect(
      actualQueryCost(
        query,
        {},
        {
          orders: {
            nodes: [
              { id: "1", customer: { id: "c" } },
              { id: "2", customer: null },
            ],
          },
        },
      ),
    ).toBe(2 + 2 + 2);
  });

  it("every query the app sends asks for at most 1,000 points", () => {
    for (const { query, variables } of APP_QUERIES) {
      const cost = requestedQueryCost(query, variables);
      expect(cost, operationName(query)).toBeLessThanOrEqual(1000);
      expect(cost, operationName(query)).toBeGreaterThan(0);
    }
  });

  it("the list above holds every query in the app's source", () => {
    const priced = new Set(APP_QUERIES.map((q) => operationName(q.query)));
    const sent = new Set<string>();
    for (const file of sourceFiles(path.resolve("app"))) {
      for (const m of readFileSync(file, "utf8").matchAll(/`#graphql\s+(?:query|mutation)\s+(\w+)/g)) sent.add(m[1]);
    }
    expect(sent.size).toBeGreaterThanOrEqual(6);
    expect(
      [...sent].filter((name) => !priced.has(name) && !STOREFRONT_QUERIES.has(name) && !BULK_QUERIES.has(name)),
    ).toEqual([]);
  });

  it("a bulk query keeps to Shopify's bulk rules (at most 5 connections, 2 levels)", () => {
    expect(bulkQueryProblems(bulkOrdersQuery(new Date(0)))).toBeNull();
  });
});

describe("the cost-checking stand-in", () => {
  let ms = 0;
  const limiter = new QueryCostLimiter({ now: () => ms });
  const server = setupServer(...orderHandlers({ limiter }));
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(() => server.close());
  const send = async (shop: string, query: string, variables: Record<string, unknown>) =>
    (
      await fetch(`https://${shop}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ query, variables }),
      })
    ).json() as Promise<{
      data?: unknown;
      errors?: { message: string; extensions?: { code: string } }[];
      extensions?: {
        cost: {
          requestedQueryCost: number;
          actualQueryCost: number | null;
          throttleStatus: { currentlyAvailable: number; maximumAvailable: number; restoreRate: number };
        };
      };
    }>;
  const page = (first: number, lines = 20) => ({
    first,
    lines,
    fulfillments: 2,
    fulfillmentLines: 20,
    after: null,
    query: "customer_id:1",
  });

  it("refuses a query over 1,000 points with MAX_COST_EXCEEDED and takes nothing", async () => {
    const answer = await send("a.myshopify.com", BACKFILL_QUERY, page(50, 250));
    expect(answer.errors?.[0].extensions?.code).toBe("MAX_COST_EXCEEDED");
    expect(answer.data).toBeUndefined();
    expect(limiter.status("a.myshopify.com").currentlyAvailable).toBe(1000);
  });

  it("reports extensions.cost, throttles a shop whose bucket is short, and restores 100 points a second", async () => {
    const first = await send("b.myshopify.com", BACKFILL_QUERY, page(5));
    expect(first.extensions?.cost).toMatchObject({
      requestedQueryCost: 693,
      throttleStatus: { maximumAvailable: 1000, restoreRate: 100 },
    });
    expect(first.extensions!.cost.actualQueryCost).toBeLessThan(693);
    limiter.take("b.myshopify.com", limiter.status("b.myshopify.com").currentlyAvailable - 100);
    const throttled = await send("b.myshopify.com", BACKFILL_QUERY, page(5));
    expect(throttled.errors?.[0].extensions?.code).toBe("THROTTLED");
    expect(throttled.extensions?.cost.throttleStatus.currentlyAvailable).toBe(100);
    // Another shop has its own bucket.
    expect((await send("c.myshopify.com", BACKFILL_QUERY, page(5))).errors).toBeUndefined();
    ms += 6_000;
    expect((await send("b.myshopify.com", BACKFILL_QUERY, page(5))).errors).toBeUndefined();
  });
});
