// The app proxy's identity is unambiguous, and storefront POSTs carry a CSRF token. Over real HTTP against the
// production build, with queries signed the way Shopify signs them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encryptSecret } from "~/crypto/secret-box.server";
import { startApp, type RunningApp } from "../helpers/app";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { proxyUrl, TEST_SHOP } from "../helpers/shopify";

const ATTACKER = "7400000001";
const VICTIM = "7400000002";

let db: TestDatabase;
let app: RunningApp;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db);
  await db.prisma.shopSettings.create({
    data: {
      shop: TEST_SHOP,
      baseUrl: "https://service.example",
      sandboxBaseUrl: "https://sandbox.service.example",
      authUrl: "https://auth.service.example",
      clientId: "client",
      clientSecretEnc: encryptSecret("client-secret"),
      signingSecretEnc: encryptSecret("signing-secret"),
    },
  });
  await db.prisma.customerGrant.create({
    data: { shop: TEST_SHOP, customerId: VICTIM, workspaceId: "ws-victim", scopes: "orders:write", accessTokenEnc: encryptSecret("t") },
  });
}, 240_000);
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const get = (url: string) => fetch(url, { redirect: "manual" });

/** A query Shopify signed for `ATTACKER`, with `extra` put in front of it: what a direct request could send. */
function withPrefix(path: string, extra: string) {
  const url = new URL(proxyUrl(app.url, path, { customerId: ATTACKER }));
  url.search = `?${extra}&${url.search.slice(1)}`;
  return url.toString();
}

describe("a proxy query with a parameter the app reads named twice", () => {
  it("a normal signed request passes", async () => {
    const response = await get(proxyUrl(app.url, "/connect", { customerId: ATTACKER }));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data-status="not_connected"');
  });

  it("a duplicated logged_in_customer_id is refused, and shows nobody's connection", async () => {
    const response = await get(withPrefix("/connect", `logged_in_customer_id=${VICTIM}`));
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain("ws-victim");
  });

  it.each(["shop=other-shop.myshopify.com", "path_prefix=%2Fapps%2Fother", "timestamp=1", "signature=00", "state=x&state=y"])(
    "as does a repeated %s",
    async (extra) => {
      expect((await get(withPrefix("/connect", extra))).status).toBe(400);
    },
  );

  it("on every proxy route", async () => {
    for (const path of ["", "/connect/complete"]) {
      expect((await get(proxyUrl(app.url, path, { customerId: ATTACKER }))).status).not.toBe(400);
      expect((await get(withPrefix(path, `logged_in_customer_id=${VICTIM}`))).status).toBe(400);
    }
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
    const response = await post(ATTACKER, { csrf_token: await pageToken(ATTACKER), customer_name: "Someone Else", customer_email: "x@example.com" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/^https:\/\/auth\.service\.example\/oauth\/authorize\?/);
    const state = await db.prisma.oAuthState.findFirstOrThrow({ where: { customerId: ATTACKER } });
    expect(state).toMatchObject({ customerName: null, customerEmail: null });
  });
});
