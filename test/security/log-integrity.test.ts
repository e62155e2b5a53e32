// The production entry's log (stdout and stderr of `node build/server-main.js`) under requests anyone can send,
// without credentials: every line is one JSON record the app wrote, whatever the requests carry (a newline and a
// forged record in ?shop=, in other parameters, in the path); at `debug` too, where Shopify's library says the
// most, and where no session token, access token, proxy signature or query string may appear.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { startProductionServer, type ProductionServer } from "../helpers/production-server";
import { mintCustomerToken, mintSessionToken, proxyUrl, TEST_SHOP } from "../helpers/shopify";

// What an attacker would like to see as a line of its own in the app's log.
const FORGED = '{"level":50,"time":1,"name":"security","msg":"forged","forged":true}';
const INJECT = `\n${FORGED}\n`;

/** Requests with the forged line in every value a client chooses, none with credentials. */
async function hostileRequests(url: string) {
  const q = encodeURIComponent(INJECT);
  const shop = encodeURIComponent(`${TEST_SHOP}${INJECT}`);
  const browser = { "User-Agent": CHROME_USER_AGENT, Origin: "https://extensions.shopifycdn.com" };
  const requests: [string, RequestInit?][] = [
    [`/proxy/connect?shop=${shop}&signature=00&timestamp=1`],
    [`/proxy/cart?shop=${shop}`, { method: "POST", body: "{}" }],
    [`/app?shop=${shop}&host=${q}&embedded=1`, { headers: browser }],
    [`/auth/login?shop=${shop}`, { headers: browser }],
    [`/customer-account/connection?shop=${shop}`, { headers: browser }],
    [`/customer-account/connection?shop=${shop}`, { method: "OPTIONS", headers: browser }],
    [`/api/order-block?shop=${shop}&order=${q}`, { headers: { ...browser, Authorization: `Bearer ${q}` } }],
    [`/connect/callback?state=${q}&code=${q}&shop=${shop}`, { headers: browser }],
    [`/${q}?shop=${shop}`],
    [
      `/webhooks/orders/create?shop=${shop}`,
      { method: "POST", body: "{}", headers: { "X-Shopify-Topic": "orders/create" } },
    ],
  ];
  for (const [path, init] of requests) {
    const res = await fetch(new URL(path, url), { redirect: "manual", ...init });
    await res.arrayBuffer();
  }
}

/** Every line of the output parsed as JSON: a line that is not one record of ours fails the test with it shown. */
function records(output: string) {
  return output
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(`a log line that is not JSON: ${line.slice(0, 300)}`);
      }
      expect(parsed, line).toMatchObject({ level: expect.any(Number), time: expect.any(Number) });
      expect((parsed as { forged?: unknown }).forged, line).toBeUndefined();
      return parsed as Record<string, unknown>;
    });
}

async function settled(server: ProductionServer) {
  // Lines are written as requests finish; give the last ones a moment.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return server.output();
}

describe.each(["info", "debug"])("at LOG_LEVEL=%s", (level) => {
  let server: ProductionServer;
  beforeAll(async () => {
    server = await startProductionServer({ LOG_LEVEL: level });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("a newline in a request value never starts a line: every line is one JSON record of the app's", async () => {
    await hostileRequests(server.url);
    const lines = records(await settled(server));
    // Shopify's library logged (it is where ?shop= went raw), through the app's logger.
    expect(lines.some((l) => l.name === "shopify")).toBe(true);
  });

  it("Shopify's start-up notes on future flags the app leaves off are kept to debug", async () => {
    const lines = records(await settled(server));
    const futureFlagNotes = lines.filter((l) => String(l.msg).includes("Future flag "));
    if (level === "info") expect(futureFlagNotes).toEqual([]);
    else expect(futureFlagNotes.length).toBeGreaterThan(0);
    // The library's other start-up lines still come through.
    expect(lines.some((l) => l.name === "shopify" && String(l.msg).includes("shopify-api/INFO] version"))).toBe(true);
  });

  it("no session token, access token, proxy signature or query string is written", async () => {
    const adminToken = await mintSessionToken(TEST_SHOP);
    const customerToken = await mintCustomerToken("42");
    const signed = new URL(proxyUrl(server.url, "/connect", { customerId: "42" }));
    const signature = signed.searchParams.get("signature")!;
    const browser = { "User-Agent": CHROME_USER_AGENT };
    const embedded = `/app?shop=${TEST_SHOP}&host=${Buffer.from(`${TEST_SHOP}/admin`).toString("base64url")}&embedded=1&id_token=${adminToken}`;
    for (const [path, init] of [
      [embedded, { headers: browser }],
      ["/api/order-block?order=1", { headers: { ...browser, Authorization: `Bearer ${adminToken}` } }],
      [
        "/customer-account/connection",
        {
          headers: {
            ...browser,
            Authorization: `Bearer ${customerToken}`,
            Origin: "https://extensions.shopifycdn.com",
          },
        },
      ],
      [signed.pathname + signed.search, {}],
      ["/connect/callback?code=secret-code-123&state=secret-state-456", { headers: browser }],
    ] as [string, RequestInit][]) {
      await (await fetch(new URL(path, server.url), { redirect: "manual", ...init })).arrayBuffer();
    }
    const output = await settled(server);
    records(output);
    for (const secret of [adminToken, customerToken, signature, "secret-code-123", "secret-state-456", "shpat_"])
      expect(output).not.toContain(secret);
  });
});
