// Budgets on the routes a shopper (or anyone) can call, over HTTP against the production server: a flood of Connect
// clicks from one signed-in customer, from many customers behind one address, or through the storefront's proxy
// page is answered 429 after a small budget, and the Admin API queries and state rows it causes stay bounded.
// Admin API calls made for a shopper go through the app's cost budget for the shop: when the shop's bucket cannot
// pay, the shopper gets a 429 and Shopify gets no query (the stand-in prices and throttles by Shopify's rules).
import { randomBytes, randomUUID } from "node:crypto";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCatalog } from "../../dev/admin-api/catalog";
import { QueryCostLimiter } from "../../dev/admin-api/cost";
import { adminApiHandlers } from "../../dev/admin-api/handlers";
import { storefrontApiHandlers } from "../../dev/storefront-api/handlers";
import { parseKeyring } from "~/crypto/secret-box.server";
import { csrfToken } from "~/lib/csrf.server";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { SHOPPER_POLICIES } from "~/lib/shopper-budget.server";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { dataPath, readData } from "../helpers/route-data";
import { mintCustomerToken, mintSessionToken, proxyUrl, TEST_API_SECRET, TEST_SHOP } from "../helpers/shopify";

const KEYS = `k1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);

// Shopify's Admin API (MSW): where the shop's customer accounts live, each query counted; a second shop's catalog
// behind a small query cost bucket (30 points, 1 a second back).
const CART_SHOP = "cost-budget.myshopify.com";
const cartShopBucket = new QueryCostLimiter({ maximumAvailable: 30, restoreRate: 1 });
const catalog = createCatalog();
let accountQueries = 0;
const shopify = setupServer(
  ...adminApiHandlers(catalog, CART_SHOP, cartShopBucket),
  ...storefrontApiHandlers(catalog, CART_SHOP, new Map()),
  graphql.link(`https://${TEST_SHOP}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`).query("CustomerAccounts", () => {
    accountQueries++;
    return HttpResponse.json({
      data: {
        shop: {
          customerAccountsV2: {
            customerAccountsVersion: "NEW_CUSTOMER_ACCOUNTS",
            url: "https://shopify.com/48291/account",
          },
        },
      },
    });
  }),
);
beforeAll(() => shopify.listen({ onUnhandledRequest: "bypass" }));
afterAll(() => shopify.close());

const h = withHarness({
  shops: [TEST_SHOP, CART_SHOP],
  keyring,
  app: { env: { ENCRYPTION_KEYS: KEYS, TRUSTED_PROXY_HOPS: "1" } },
  emulator: "oauth",
});

beforeAll(async () => {
  const s = emulatorSettings(h.emulator.url);
  for (const shop of [TEST_SHOP, CART_SHOP]) {
    const res = await fetch(new URL(dataPath("/app/settings", "routes/app.settings"), h.app.url), {
      method: "POST",
      headers: { Authorization: `Bearer ${await mintSessionToken(shop)}`, "User-Agent": CHROME_USER_AGENT },
      body: new URLSearchParams({ intent: "save", ...s, environment: s.environment }),
    });
    expect(res.status, JSON.stringify(await readData(res))).toBe(200);
  }
});

const connectClick = async (customerId: string) => {
  const res = await fetch(new URL("/customer-account/connection", h.app.url), {
    method: "POST",
    headers: {
      Origin: "https://extensions.shopifycdn.com",
      "User-Agent": CHROME_USER_AGENT,
      Authorization: `Bearer ${await mintCustomerToken(customerId)}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ intent: "connect" }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, headers: res.headers, body };
};

/** `n` calls of `call`, `concurrency` at a time (a client hammering a button). */
async function flood<T>(n: number, concurrency: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < n; i += concurrency) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(concurrency, n - i) }, (_, j) => call(i + j)))));
  }
  return results;
}

const statesOf = (customerIds: string[]) =>
  h.db.prisma.oAuthState.count({ where: { shop: TEST_SHOP, customerId: { in: customerIds } } });

describe("Connect from the account page under a flood", () => {
  it("a shopper who opens the Connect page again and again gets the same link each time, at no cost", async () => {
    const before = accountQueries;
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await connectClick("4001"));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((a) => a.body.authorizationUrl)).size).toBe(1);
    expect(accountQueries - before).toBeLessThanOrEqual(1);
    expect(await statesOf(["4001"])).toBe(1);
  });

  it("300 clicks from one customer: the same link within the request budget, the rest 429 with Retry-After and CORS; one Admin API query, one state row", async () => {
    const before = accountQueries;
    const started = Date.now();
    const answers = await flood(300, 20, () => connectClick("5001"));
    const refills = Math.ceil((Date.now() - started) / SHOPPER_POLICIES.request.customer.refillMs);
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok.length + refused.length).toBe(300);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    // Handing the pending link out again is a plain request (a read), so the request budget bounds it.
    expect(ok.length).toBeLessThanOrEqual(SHOPPER_POLICIES.request.customer.burst + refills);
    expect(new Set(ok.map((a) => a.body.authorizationUrl)).size).toBe(1);
    for (const a of refused.slice(0, 5)) {
      expect(a.body).toMatchObject({ error: "busy" });
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(a.headers.get("access-control-allow-origin")).toBe("*");
    }
    expect(accountQueries - before).toBeLessThanOrEqual(1); // the account URL is kept per shop
    expect(await statesOf(["5001"])).toBe(1);
  });

  it("many customers behind one address: new attempts refused after the address's connect budget; rows and Admin API queries stay bounded", async () => {
    const before = accountQueries;
    const customers = Array.from({ length: 100 }, (_, i) => String(6000 + i));
    const started = Date.now();
    const answers = await flood(300, 20, (i) => connectClick(customers[i % customers.length]));
    const refills = Math.ceil((Date.now() - started) / SHOPPER_POLICIES.connect.address.refillMs);
    const ok = answers.filter((a) => a.status === 200).length;
    expect(answers.filter((a) => a.status === 429).length).toBe(300 - ok);
    expect(ok).toBeGreaterThanOrEqual(1);
    // Each row is a new attempt, and new attempts are what the connect budget counts.
    expect(await statesOf(customers)).toBeLessThanOrEqual(SHOPPER_POLICIES.connect.address.burst + refills);
    expect(accountQueries - before).toBeLessThanOrEqual(1);
  });
});

describe("Connect on the storefront's proxy page under a flood", () => {
  it("300 form posts from one customer: 429 after a few; state rows stay within the per-customer cap", async () => {
    const customerId = "7301";
    const post = () =>
      fetch(proxyUrl(h.app.url, "/connect", { customerId }), {
        method: "POST",
        redirect: "manual",
        // As the app sees it behind one load balancer: the shopper's address, appended by Shopify's proxy, then Shopify's.
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "X-Forwarded-For": "203.0.113.7, 198.51.100.1",
        },
        body: new URLSearchParams({ csrf_token: csrfToken(`${TEST_SHOP}:${customerId}`, { secret: TEST_API_SECRET }) }),
      }).then(async (res) => ({
        status: res.status,
        location: res.headers.get("location"),
        retryAfter: res.headers.get("retry-after"),
      }));
    const answers = await flood(300, 20, post);
    const redirected = answers.filter((a) => a.status === 302);
    expect(redirected.length).toBeGreaterThanOrEqual(1);
    expect(redirected.length).toBeLessThanOrEqual(5);
    expect(new Set(redirected.map((a) => a.location)).size).toBe(1);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(300 - redirected.length);
    expect(Number(refused[0].retryAfter)).toBeGreaterThan(0);
    expect(await statesOf([customerId])).toBe(1);
  });
});

describe("Admin API calls made for a shopper", () => {
  it("go through the shop's cost budget: once the bucket cannot pay, Continue cart answers 429 busy, writes nothing, and Shopify is not asked", async () => {
    const click = async (i: number) => {
      const res = await fetch(proxyUrl(h.app.url, "/cart", { shop: CART_SHOP, customerId: null }), {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-Forwarded-For": `198.51.100.${i + 1}, 203.0.113.250`,
        },
        body: JSON.stringify({
          token: `tok-${randomUUID()}`,
          locale: "en",
          lines: [{ variant_id: "41000000001", quantity: 1 }],
        }),
      });
      const body = (await res.json()) as { ok: boolean; code?: string };
      return { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after") };
    };
    const answers: Awaited<ReturnType<typeof click>>[] = [];
    for (let i = 0; i < 30; i++) answers.push(await click(i));
    const made = answers.filter((a) => a.status === 200).length;
    const busy = answers.filter((a) => a.status === 429 && a.code === "busy");
    expect(made).toBeGreaterThan(0);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.length).toBe(30 - made);
    expect(Number(busy[0]?.retryAfter)).toBeGreaterThan(0);
    // No query was sent that the bucket could not pay for, and a refusal wrote no row.
    expect(cartShopBucket.throttled).toBe(0);
    expect(await h.db.prisma.cartHandoff.count({ where: { shop: CART_SHOP } })).toBe(made);
  });
});
