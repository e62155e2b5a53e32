// Expiring offline access tokens: an offline session stored encrypted with an expired access token is refreshed by
// Shopify's library on the next Admin API call, and the new tokens are stored encrypted again. MSW answers
// Shopify's token endpoint and the Admin GraphQL API; everything else is the app's own code.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { Session } from "@shopify/shopify-api";
import { decryptSecret, parseKeyring } from "~/crypto/secret-box.server";
import { setDatabase } from "~/db.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { TEST_SHOP } from "../helpers/shopify";

const KEYS = `ot1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);
const seen = { refresh: [] as Record<string, unknown>[], graphqlTokens: [] as (string | null)[] };
const shopify = setupServer(
  http.post(`https://${TEST_SHOP}/admin/oauth/access_token`, async ({ request }) => {
    seen.refresh.push((await request.json()) as Record<string, unknown>);
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
    if (token !== "shpat_fresh") return HttpResponse.json({ errors: "Invalid API key or access token" }, { status: 401 });
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
    expect(stored.accessToken).toMatch(/^enc:v1:ot1:/);
    expect(stored.refreshToken).toMatch(/^enc:v1:ot1:/);
    expect(decryptSecret(stored.refreshToken!, keyring)).toBe("shprt_stored");

    const { admin } = await shopifyServer.unauthenticated.admin(TEST_SHOP);
    const response = await admin.graphql("#graphql\nquery { shop { name } }");
    expect(await response.json()).toMatchObject({ data: { shop: { name: "Test shop" } } });

    // One refresh with the decrypted refresh token, then the call with the new access token only.
    expect(seen.refresh).toHaveLength(1);
    expect(seen.refresh[0]).toMatchObject({ grant_type: "refresh_token", refresh_token: "shprt_stored" });
    expect(seen.graphqlTokens).toEqual(["shpat_fresh"]);
    const refreshed = await db.prisma.session.findUniqueOrThrow({ where: { id: offline.id } });
    expect(refreshed.accessToken).toMatch(/^enc:v1:ot1:/);
    expect(refreshed.refreshToken).toMatch(/^enc:v1:ot1:/);
    expect(decryptSecret(refreshed.accessToken, keyring)).toBe("shpat_fresh");
    expect(decryptSecret(refreshed.refreshToken!, keyring)).toBe("shprt_fresh");
    expect(refreshed.expires!.getTime()).toBeGreaterThan(Date.now() + 3000_000);

    // The next call uses the stored fresh token: no second refresh.
    await (await shopifyServer.unauthenticated.admin(TEST_SHOP)).admin.graphql("#graphql\nquery { shop { name } }");
    expect(seen.refresh).toHaveLength(1);
  });
});
