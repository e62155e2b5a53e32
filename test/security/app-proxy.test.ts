// The app proxy's identity is unambiguous, and storefront POSTs carry a CSRF token. Over real HTTP against the
// production build, with queries signed the way Shopify signs them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindings, sealFor } from "~/crypto/secret-box.server";
import { startApp, type RunningApp } from "../helpers/app";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { proxyUrl, TEST_SHOP } from "../helpers/shopify";
import { serviceSettingsRow } from "../helpers/service-settings";

const ATTACKER = "7400000001";
const VICTIM = "7400000002";

let db: TestDatabase;
let app: RunningApp;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db);
  await db.prisma.shopSettings.create({
    data: serviceSettingsRow(TEST_SHOP, {
      baseUrl: "https://service.example",
      sandboxBaseUrl: "https://sandbox.service.example",
      authUrl: "https://auth.service.example",
      clientId: "client",
      clientSecret: "client-secret",
      signingSecret: "signing-secret",
    }),
  });
  await db.prisma.customerGrant.create({
    data: {
      shop: TEST_SHOP,
      customerId: VICTIM,
      workspaceId: "ws-victim",
      scopes: "orders:write",
      accessTokenEnc: sealFor(bindings.customerGrant({ shop: TEST_SHOP, customerId: VICTIM }, "accessTokenEnc"), "t"),
    },
  });
}, 240_000);
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const get = (url: string) => fetch(url, { redirect: "manual" });

/**
 * The query Shopify would send when the logged-in ATTACKER adds `name=value` to a storefront URL: the shopper's
 * parameter first, Shopify's own after it, all signed (repeated keys signed as their values joined by commas).
 */
function repeated(path: string, name: string, value: string) {
  const own: Record<string, string> = {
    shop: TEST_SHOP,
    logged_in_customer_id: ATTACKER,
    path_prefix: "/apps/workspace",
    timestamp: String(Math.floor(Date.now() / 1000)),
  };
  const first = name in own ? [value, own[name]] : [value, value];
  return proxyUrl(app.url, path, { customerId: ATTACKER, extra: { [name]: first } });
}

describe("a proxy query with a parameter the app reads named twice", () => {
  it("a normal signed request passes", async () => {
    const response = await get(proxyUrl(app.url, "/connect", { customerId: ATTACKER }));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data-status="not_connected"');
  });

  it("a duplicated logged_in_customer_id is refused, and shows nobody's connection", async () => {
    const response = await get(repeated("/connect", "logged_in_customer_id", VICTIM));
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain("ws-victim");
  });

  it.each([
    ["shop", "other-shop.myshopify.com"],
    ["path_prefix", "/apps/other"],
    ["timestamp", "1"],
    ["state", "x"],
  ])("as does a repeated %s", async (name, value) => {
    expect((await get(repeated("/connect", name, value))).status).toBe(400);
  });

  it("on every proxy route", async () => {
    for (const path of ["", "/connect/complete"]) {
      expect((await get(proxyUrl(app.url, path, { customerId: ATTACKER }))).status).not.toBe(400);
      expect((await get(repeated(path, "logged_in_customer_id", VICTIM))).status).toBe(400);
    }
  });

  it("on the Continue cart route too (a POST)", async () => {
    const post = (url: string) =>
      fetch(url, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: "cart-1", lines: [{ variant_id: "1", quantity: 1 }] }),
      });
    const normal = await post(proxyUrl(app.url, "/cart", { customerId: ATTACKER }));
    expect(normal.status).not.toBe(400); // this shop has no service settings: a plain "not available", not a refusal
    expect((await post(repeated("/cart", "logged_in_customer_id", VICTIM))).status).toBe(400);
  });
});

describe("a storefront POST", () => {
  const post = (customerId: string, body: Record<string, string>) =>
    fetch(proxyUrl(app.url, "/connect", { customerId }), {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });

  async function pageToken(customerId: string) {
    const html = await (await get(proxyUrl(app.url, "/connect", { customerId }))).text();
    const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
    expect(token).toBeTruthy();
    return token!;
  }

  it("without the page's CSRF token (another site's form) starts nothing", async () => {
    const response = await post(ATTACKER, {});
    expect(response.status).toBe(403);
    expect(await db.prisma.oAuthState.count()).toBe(0);
  });

  it("with another customer's token starts nothing", async () => {
    const response = await post(ATTACKER, { csrf_token: await pageToken(VICTIM) });
    expect(response.status).toBe(403);
    expect(await db.prisma.oAuthState.count()).toBe(0);
  });

  it("with the token of the page the customer was shown starts the connection; names typed into the form are ignored", async () => {
    const response = await post(ATTACKER, {
      csrf_token: await pageToken(ATTACKER),
      customer_name: "Someone Else",
      customer_email: "x@example.com",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/^https:\/\/auth\.service\.example\/oauth\/authorize\?/);
    const state = await db.prisma.oAuthState.findFirstOrThrow({ where: { customerId: ATTACKER } });
    expect(state).toMatchObject({ customerName: null, customerEmail: null });
  });
});
