// The demo's own logic that the end-to-end demo test does not pin down: options, the emulator config merge and
// the order traffic's shape.
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKFILL_QUERY, BACKFILL_SIZES, ORDER_LINES_QUERY } from "~/sync/backfill-queries.server";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { orderHandlers } from "../dev/admin-api/orders";
import { generateOrders } from "../dev/demo/orders";
import { formatLine } from "../dev/demo/processes";
import { refusal } from "../dev/demo/seed";
import { deepMerge, emulatorConfig, parseDemoArgs, UsageError } from "../dev/demo/options";
import { DEMO_CUSTOMERS, DEMO_SHOP, orderHistory } from "../dev/demo-store";
import { DEFAULT_CONFIG } from "../emulator/config";

describe("demo options", () => {
  it("defaults to port 3000 and ./data/demo, with the worker in the app", () => {
    expect(parseDemoArgs([], "/repo")).toEqual({
      port: 3000,
      dataDir: "/repo/data/demo",
      reset: false,
      workers: 0,
      proxyPath: "/apps/workspace",
    });
  });

  it("takes every option, in both --name value and --name=value forms", () => {
    const options = parseDemoArgs(
      [
        "--port=4000",
        "--data-dir",
        "x",
        "--reset",
        "--database-url",
        "postgresql://u@h/db",
        "--workers",
        "2",
        "--emulator-config=e.json",
        "--proxy-path",
        "/tools/team-space",
        "--locale",
        "fr",
      ],
      "/repo",
    );
    expect(options).toEqual({
      port: 4000,
      dataDir: "/repo/x",
      reset: true,
      databaseUrl: "postgresql://u@h/db",
      workers: 2,
      emulatorConfig: "/repo/e.json",
      proxyPath: "/tools/team-space",
      locale: "fr",
    });
  });

  it.each([
    [["--workers", "2"], /needs --database-url/],
    [["--port", "0"], /fixed port/],
    [["--port", "70000"], /whole number up to 65535/],
    [["--database-url", "mysql://x"], /postgresql/],
    [["--data-dir"], /needs a value/],
    [["--verbose"], /unknown option/],
    [["--proxy-path", "/apps/x/y"], /--proxy-path must be/],
    [["--proxy-path", "//evil.example/x"], /--proxy-path must be/],
    [["--locale", "../fr"], /--locale must be/],
    [["--locale", "fr&x=1"], /--locale must be/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseDemoArgs(argv)).toThrow(UsageError);
    expect(() => parseDemoArgs(argv)).toThrow(message);
  });

  it("a partial emulator config changes only what it names", () => {
    const merged = deepMerge(DEFAULT_CONFIG, { rate_limit: { capacity: 1000, leak_per_second: 500 } });
    expect(merged).toEqual({ ...DEFAULT_CONFIG, rate_limit: { capacity: 1000, leak_per_second: 500 } });
    expect(deepMerge(DEFAULT_CONFIG, { rate_limit: { capacity: 5 } }).rate_limit).toEqual({
      capacity: 5,
      leak_per_second: 2,
    });
    expect(deepMerge(DEFAULT_CONFIG, { workspaces: [{ id: "w", name: "W" }] }).workspaces).toEqual([
      { id: "w", name: "W" },
    ]);
  });

  it("the emulator knows the demo's OAuth callback, even when the config file replaces the apps", () => {
    const own = emulatorConfig("http://127.0.0.1:4000");
    expect(own.clients[0].redirect_uris).toEqual(["http://127.0.0.1:4000/connect/callback"]);
    expect(emulatorConfig("http://127.0.0.1:4000", { rate_limit: { capacity: 1000, leak_per_second: 500 } })).toEqual({
      ...own,
      rate_limit: { capacity: 1000, leak_per_second: 500 },
    });
    const replaced = emulatorConfig("http://127.0.0.1:4000", {
      clients: [{ client_id: "c", client_secret: "s", signing_secrets: ["k"], redirect_uris: ["https://x/cb"] }],
    });
    expect(replaced.clients).toEqual([
      {
        client_id: "c",
        client_secret: "s",
        signing_secrets: ["k"],
        redirect_uris: ["https://x/cb", "http://127.0.0.1:4000/connect/callback"],
      },
    ]);
  });
});

describe("demo order traffic", () => {
  const { orderIds, fulfillmentIds, deliveries } = generateOrders(20, [DEMO_CUSTOMERS[0]], 1_795_000_000_000);

  it("twenty distinct orders, each with one fulfillment of its latest lines", () => {
    expect(new Set(orderIds).size).toBe(20);
    expect(new Set(fulfillmentIds).size).toBe(20);
    for (const id of fulfillmentIds) {
      const f = deliveries.find((d) => d.topic === "fulfillments/create" && String(d.payload.id) === id)!;
      const latest = deliveries
        .filter((d) => d.topic !== "fulfillments/create" && d.payload.id === f.payload.order_id)
        .sort((a, b) => String(a.payload.updated_at).localeCompare(String(b.payload.updated_at)))
        .at(-1)!;
      const lines = (latest.payload.line_items as { id: number; quantity: number }[]).map((l) => ({
        id: l.id,
        quantity: l.quantity,
      }));
      expect(
        (f.payload.line_items as { id: number; quantity: number }[]).map((l) => ({ id: l.id, quantity: l.quantity })),
      ).toEqual(lines);
    }
  });

  it("with duplicates (the same event id twice), updates, and deliveries that overtake the order's create", () => {
    const duplicates = deliveries.filter((d) => d.note === "duplicate");
    expect(duplicates.length).toBeGreaterThan(0);
    for (const d of duplicates) expect(deliveries.filter((x) => x.eventId === d.eventId)).toHaveLength(2);
    expect(deliveries.some((d) => d.topic === "orders/updated")).toBe(true);
    const early = deliveries.filter((d) => d.note === "out_of_order");
    expect(early.map((d) => d.topic).sort()).toEqual(expect.arrayContaining(["fulfillments/create", "orders/updated"]));
    for (const d of early) {
      const orderId = d.topic === "fulfillments/create" ? d.payload.order_id : d.payload.id;
      const create = deliveries.findIndex((x) => x.topic === "orders/create" && x.payload.id === orderId);
      expect(deliveries.indexOf(d)).toBeLessThan(create);
    }
  });

  it("every order belongs to the given customer and is priced from the catalog", () => {
    for (const d of deliveries.filter((x) => x.topic !== "fulfillments/create")) {
      expect((d.payload.customer as { id: number }).id).toBe(Number(DEMO_CUSTOMERS[0].id));
    }
  });
});

describe("the demo's Admin API handlers, as the backfill calls them", () => {
  const server = setupServer(...orderHandlers());
  // The Admin GraphQL request as Shopify's library sends it (the handlers answer by shop, query and variables).
  const adminGraphql = async (shop: string, query: string, variables: Record<string, unknown>) => {
    const response = await fetch(`https://${shop}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": "shpat_demo" },
      body: JSON.stringify({ query, variables }),
    });
    return response.json();
  };
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(() => server.close());

  type Node = { id: string; customer: { id: string }; lineItems: { nodes: unknown[] }; fulfillments: unknown[] };
  type Page = {
    data: {
      ordersCount: { count: number };
      orders: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Node[] };
    };
  };

  it("answers the backfill's query with the customer's orders since the date, paged", async () => {
    const customer = DEMO_CUSTOMERS[0].id;
    const history = orderHistory().filter((o) => o.customerId === customer);
    const since = new Date(Date.now() - 60 * 86_400_000).toISOString();
    const first = (await adminGraphql(DEMO_SHOP, BACKFILL_QUERY, {
      ...BACKFILL_SIZES,
      first: 2,
      after: null,
      query: `customer_id:${customer} created_at:>='${since}'`,
    })) as Page;
    expect(first.data.ordersCount.count).toBe(history.length);
    expect(first.data.orders.pageInfo).toEqual({ hasNextPage: true, endCursor: "2" });
    const second = (await adminGraphql(DEMO_SHOP, BACKFILL_QUERY, {
      ...BACKFILL_SIZES,
      first: 2,
      after: "2",
      query: `customer_id:${customer} created_at:>='${since}'`,
    })) as Page;
    const orders = [...first.data.orders.nodes, ...second.data.orders.nodes];
    expect(orders.map((o) => o.id).sort()).toEqual(history.map((o) => `gid://shopify/Order/${o.id}`).sort());
    expect(
      orders.every((o) => o.customer.id === `gid://shopify/Customer/${customer}` && o.lineItems.nodes.length === 2),
    ).toBe(true);
    expect(orders.flatMap((o) => o.fulfillments)).toHaveLength(history.filter((o) => o.fulfillment).length);

    const recent = (await adminGraphql(DEMO_SHOP, BACKFILL_QUERY, {
      ...BACKFILL_SIZES,
      after: null,
      query: `customer_id:${customer} created_at:>='${new Date(Date.now() - 20 * 86_400_000).toISOString()}'`,
    })) as Page;
    expect(recent.data.ordersCount.count).toBeLessThan(history.length);
  });

  it("answers the order-lines query, and null for an order it does not know", async () => {
    const order = orderHistory()[0];
    const lines = (await adminGraphql(DEMO_SHOP, ORDER_LINES_QUERY, {
      id: `gid://shopify/Order/${order.id}`,
      first: 250,
      after: null,
    })) as { data: { order: { lineItems: { nodes: unknown[] } } | null } };
    expect(lines.data.order!.lineItems.nodes).toHaveLength(order.lines.length);
    const none = (await adminGraphql(DEMO_SHOP, ORDER_LINES_QUERY, {
      id: "gid://shopify/Order/1",
      first: 250,
      after: null,
    })) as { data: { order: null } };
    expect(none.data.order).toBeNull();
  });
});

describe("the demo's terminal", () => {
  const line = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 0, 1, 12, 0, 0),
    pid: 1,
    hostname: "h",
    name: "sync",
    msg: "worker started",
    concurrency: 4,
  });

  it("formats a child's pino JSON line with pino-pretty, prefixed with the child's name", () => {
    const { text, important } = formatLine("app", line, false, false);
    expect(text).toMatch(/^\[app\] \[\d\d:\d\d:\d\d\] INFO \(sync\): worker started \{"concurrency":4\}\n$/);
    expect(text).not.toContain('"level"');
    expect(important).toBe(false);
  });

  it("counts warnings and errors, and other lines on stderr, as worth showing after the ready banner", () => {
    expect(formatLine("app", JSON.stringify({ level: 50, time: 0, msg: "boom" }), false, false).important).toBe(true);
    expect(formatLine("app", "TypeError: x is undefined", true, false).important).toBe(true);
    expect(formatLine("emulator", "listening on http://127.0.0.1:1", false, false)).toEqual({
      text: "[emulator] listening on http://127.0.0.1:1\n",
      important: false,
    });
  });
});

describe("the demo's service settings", () => {
  it("a refused save says what was refused, field by field and the origin change", () => {
    expect(
      refusal({
        ok: false,
        fieldErrors: { authUrl: "Auth URL must be https" },
        fieldProblems: { authUrl: { code: "https_only" } },
        values: { environment: "sandbox", baseUrl: "", sandboxBaseUrl: "", authUrl: "", clientId: "" },
        originChange: { grants: 1, message: "1 connected customer will have to reconnect." },
      }),
    ).toBe("authUrl: Auth URL must be https; 1 connected customer will have to reconnect.");
  });
});
