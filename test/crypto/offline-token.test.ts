// Expiring offline access tokens: an offline session stored encrypted with an expired access token is refreshed by
// Shopify's library on the next Admin API call, and the new tokens are stored encrypted again. MSW answers
// Shopify's token endpoint and the Admin GraphQL API; everything else is the app's own code.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { Session } from "@shopify/shopify-api";
import { bindings, openFor, parseKeyring } from "~/crypto/secret-box.server";
import { setDatabase } from "~/db.server";
import { createOfflineTokenRefresher } from "~/crypto/offline-token-refresh.server";
import { openDatabase } from "~/db/connect.server";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";
import { TEST_SHOP } from "../helpers/shopify";

const KEYS = `ot1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);
const seen = { refresh: [] as Record<string, unknown>[], graphqlTokens: [] as (string | null)[] };
// Shopify's token endpoint as strict as Shopify: a refresh token works once, and is replaced by the new one.
const valid = new Set(["shprt_stored"]);
const shopify = setupServer(
  http.post(`https://${TEST_SHOP}/admin/oauth/access_token`, async ({ request }) => {
    const body = (await request.json()) as Record<string, unknown>;
    seen.refresh.push(body);
    await new Promise((resolve) => setTimeout(resolve, 50)); // long enough for a second caller to arrive
    if (!valid.delete(String(body.refresh_token)))
      return HttpResponse.json({ error: "invalid_grant" }, { status: 400 });
    valid.add("shprt_fresh");
    return HttpResponse.json({
      access_token: "shpat_fresh",
      scope: "read_orders,read_fulfillments,read_customers,read_products,write_app_proxy",
      expires_in: 3600,
      refresh_token: "shprt_fresh",
      refresh_token_expires_in: 90 * 86_400,
    });
  }),
  http.post(`https://${TEST_SHOP}/admin/api/:version/graphql.json`, ({ request }) => {
    const token = request.headers.get("X-Shopify-Access-Token");
    seen.graphqlTokens.push(token);
    if (token !== "shpat_fresh")
      return HttpResponse.json({ errors: "Invalid API key or access token" }, { status: 401 });
    return HttpResponse.json({ data: { shop: { name: "Test shop" } } });
  }),
);

let db: TestDatabase;
let shopifyServer: typeof import("~/shopify.server");

beforeAll(async () => {
  // Before Shopify's library is imported: it keeps the fetch it finds then.
  shopify.listen({ onUnhandledRequest: "error" });
  db = await createTestDatabase();
  setDatabase(db);
  process.env.ENCRYPTION_KEYS = KEYS;
  process.env.LOG_LEVEL = "silent";
  shopifyServer = await import("~/shopify.server");
}, 60_000);
afterAll(async () => {
  shopify.close();
  await db?.close();
});

function expiredSession(refreshToken = "shprt_stored") {
  return new Session({
    id: `offline_${TEST_SHOP}`,
    shop: TEST_SHOP,
    state: "",
    isOnline: false,
    scope: "read_orders",
    accessToken: "shpat_expired",
    expires: new Date(Date.now() - 60_000),
    refreshToken,
    refreshTokenExpires: new Date(Date.now() + 30 * 86_400_000),
  });
}

function resetStandIn() {
  seen.refresh.length = 0;
  seen.graphqlTokens.length = 0;
  valid.clear();
  valid.add("shprt_stored");
}

describe("expiring offline access tokens", () => {
  it("refreshes an expired, encrypted offline session through Shopify's library on the next Admin API call", async () => {
    const offline = new Session({
      id: `offline_${TEST_SHOP}`,
      shop: TEST_SHOP,
      state: "",
      isOnline: false,
      scope: "read_orders",
      accessToken: "shpat_expired",
      expires: new Date(Date.now() - 60_000),
      refreshToken: "shprt_stored",
      refreshTokenExpires: new Date(Date.now() + 30 * 86_400_000),
    });
    await shopifyServer.sessionStorage.storeSession(offline);
    const stored = await db.prisma.session.findUniqueOrThrow({ where: { id: offline.id } });
    expect(stored.accessToken).toMatch(/^enc:v2:ot1:/);
    expect(stored.refreshToken).toMatch(/^enc:v2:ot1:/);
    expect(openFor(bindings.session(stored, "refreshToken"), stored.refreshToken!, keyring)).toBe("shprt_stored");

    const { admin } = await shopifyServer.unauthenticated.admin(TEST_SHOP);
    const response = await admin.graphql("#graphql\nquery { shop { name } }");
    expect(await response.json()).toMatchObject({ data: { shop: { name: "Test shop" } } });

    // One refresh with the decrypted refresh token, then the call with the new access token only.
    expect(seen.refresh).toHaveLength(1);
    expect(seen.refresh[0]).toMatchObject({ grant_type: "refresh_token", refresh_token: "shprt_stored" });
    expect(seen.graphqlTokens).toEqual(["shpat_fresh"]);
    const refreshed = await db.prisma.session.findUniqueOrThrow({ where: { id: offline.id } });
    expect(refreshed.accessToken).toMatch(/^enc:v2:ot1:/);
    expect(refreshed.refreshToken).toMatch(/^enc:v2:ot1:/);
    expect(openFor(bindings.session(refreshed, "accessToken"), refreshed.accessToken, keyring)).toBe("shpat_fresh");
    expect(openFor(bindings.session(refreshed, "refreshToken"), refreshed.refreshToken!, keyring)).toBe("shprt_fresh");
    expect(refreshed.expires!.getTime()).toBeGreaterThan(Date.now() + 3000_000);

    // The next call uses the stored fresh token: no second refresh.
    await (await shopifyServer.unauthenticated.admin(TEST_SHOP)).admin.graphql("#graphql\nquery { shop { name } }");
    expect(seen.refresh).toHaveLength(1);
  });

  it("refreshes once when two calls find the session expired at the same time: both get the new token", async () => {
    resetStandIn();
    await shopifyServer.sessionStorage.storeSession(expiredSession());
    const call = async () =>
      (
        await (await shopifyServer.unauthenticated.admin(TEST_SHOP)).admin.graphql("#graphql\nquery { shop { name } }")
      ).json();
    const answers = await Promise.all([call(), call(), call()]);
    for (const answer of answers) expect(answer).toMatchObject({ data: { shop: { name: "Test shop" } } });
    expect(seen.refresh).toHaveLength(1);
    expect(seen.graphqlTokens).toEqual(["shpat_fresh", "shpat_fresh", "shpat_fresh"]);
    const stored = await db.prisma.session.findUniqueOrThrow({ where: { id: `offline_${TEST_SHOP}` } });
    expect(openFor(bindings.session(stored, "refreshToken"), stored.refreshToken!, keyring)).toBe("shprt_fresh");
  });

  it.runIf(usingPostgres())(
    "refreshes once across two processes sharing PostgreSQL (advisory lock): both get the new token",
    async () => {
      resetStandIn();
      await shopifyServer.sessionStorage.storeSession(expiredSession());
      // A second process: its own connection pool and its own in-process refresher, on the same database.
      const other = openDatabase({ url: db.url!, poolSize: 2 });
      try {
        await other.ready;
        const refresher = (prisma: typeof db.prisma) =>
          createOfflineTokenRefresher({
            prisma: () => prisma,
            sharedDatabase: () => true,
            keyring: () => keyring,
            refresh: async (shop, refreshToken) => {
              const response = await fetch(`https://${shop}/admin/oauth/access_token`, {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({ grant_type: "refresh_token", refresh_token: refreshToken }),
              });
              if (!response.ok) throw new Error(`refresh refused: ${response.status}`);
              const body = (await response.json()) as {
                access_token: string;
                refresh_token: string;
                expires_in: number;
              };
              return new Session({
                id: `offline_${shop}`,
                shop,
                state: "",
                isOnline: false,
                accessToken: body.access_token,
                refreshToken: body.refresh_token,
                expires: new Date(Date.now() + body.expires_in * 1000),
              });
            },
          });
        const [a, b] = await Promise.all([
          refresher(db.prisma)(expiredSession()),
          refresher(other.prisma)(expiredSession()),
        ]);
        expect(seen.refresh).toHaveLength(1);
        expect([a.accessToken, b.accessToken]).toEqual(["shpat_fresh", "shpat_fresh"]);
        expect([a.refreshToken, b.refreshToken]).toEqual(["shprt_fresh", "shprt_fresh"]);
      } finally {
        await other.close();
      }
    },
  );
});
