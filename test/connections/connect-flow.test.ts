// Customer workspace connection end to end: storefront page (app proxy) → OAuth with PKCE at the emulator →
// callback on the app (code exchanged, tokens kept pending) → completion step on the store (app proxy), where the
// logged-in customer must be the one who started → grant stored encrypted → back on the store; every failure
// path (a different or anonymous customer finishing someone else's flow among them); the Customers page; tenant
// isolation between two shops.
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { createPrismaGrantStore, grantStoreFor } from "~/connections/prisma-grant-store.server";
import { storeGrant } from "~/connections/grant-lifecycle.server";
import { bindings, openFor, keyIdOf, parseKeyring } from "~/crypto/secret-box.server";
import { importOrder, revokeToken, serviceOrigins } from "~/service/client.server";
import { CHROME_USER_AGENT, newContext, screenshotPath } from "../helpers/browser";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { csrfToken } from "~/lib/csrf.server";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { embeddedUrl, mintSessionToken, proxyUrl, TEST_API_SECRET, TEST_SHOP } from "../helpers/shopify";
import { dataPath, readData } from "../helpers/route-data";
import { routeStorefront } from "../helpers/storefront";

const KEYS = `k1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);
const SETTINGS_DATA = dataPath("/app/settings", "routes/app.settings");
const CUSTOMERS_DATA = dataPath("/app/customers", "routes/app.customers");
const SHOP_B = "shop-b.myshopify.com";
const ORDER = {
  external_order_id: "order-9001",
  ordered_at: "2026-11-01T10:00:00Z",
  lines: [{ external_line_id: "line-1", title: "Blue mug", quantity: 1 }],
};

// Shopify's Admin API (MSW): the customer's name and email as Shopify knows them, by "shop:customerId".
const profiles = new Map<string, { name: string; email: string }>([
  [`${TEST_SHOP}:7001`, { name: "Ada Lovelace", email: "ada@example.com" }],
]);
const shopify = setupServer(
  ...[TEST_SHOP, SHOP_B].map((shop) =>
    graphql
      .link(`https://${shop}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`)
      .query("CustomerProfile", ({ variables }) => {
        const profile = profiles.get(`${shop}:${String(variables.id).split("/").pop()}`);
        const customer = profile
          ? { displayName: profile.name, defaultEmailAddress: { emailAddress: profile.email } }
          : null;
        return HttpResponse.json({ data: { customer } });
      }),
  ),
);
// Registered before the harness's hooks: MSW must listen before the app's build takes the global fetch.
beforeAll(() => shopify.listen({ onUnhandledRequest: "bypass" }));
afterAll(() => shopify.close());

const h = withHarness({
  shops: [TEST_SHOP, SHOP_B],
  keyring,
  app: { env: { ENCRYPTION_KEYS: KEYS } },
  emulator: "oauth",
  browser: true,
});

// ---- small drivers over plain HTTP -------------------------------------------------------------------------

async function admin(path: string, init: RequestInit & { shop?: string } = {}) {
  const url = new URL(path, h.app.url);
  return fetch(url, {
    ...init,
    redirect: "manual",
    headers: {
      Authorization: `Bearer ${await mintSessionToken(init.shop ?? TEST_SHOP)}`,
      "User-Agent": CHROME_USER_AGENT,
      ...(init.headers ?? {}),
    },
  });
}

async function saveSettings(shop: string, fields: Record<string, string>) {
  const res = await admin(SETTINGS_DATA, {
    method: "POST",
    shop,
    body: new URLSearchParams({ intent: "save", ...fields }),
  });
  return { status: res.status, body: await readData(res) };
}

/**
 * POSTs the storefront form (with the token its page carries) through the proxy signer; returns the emulator's
 * authorize URL. `name` is what Shopify's Admin API will say about the customer.
 */
async function startFlow(customerId: string, shop = TEST_SHOP, name = "") {
  if (name) profiles.set(`${shop}:${customerId}`, { name, email: "" });
  const res = await fetch(proxyUrl(h.app.url, "/connect", { customerId, shop }), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "User-Agent": CHROME_USER_AGENT },
    body: new URLSearchParams({ csrf_token: csrfToken(`${shop}:${customerId}`, { secret: TEST_API_SECRET }) }),
  });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location")!);
}

/** Answers the consent page like the customer would; returns the callback URL the emulator redirects to. */
async function consent(authorize: URL, decision: "approve" | "deny", workspaceId = "ws-acme") {
  const form = new URLSearchParams(authorize.searchParams);
  form.set("workspace_id", workspaceId);
  form.set("decision", decision);
  const res = await fetch(new URL("/oauth/authorize", h.emulator.url), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  expect(res.status).toBe(302);
  return res.headers.get("location")!;
}

async function callback(location: string) {
  const res = await fetch(location, { redirect: "manual", headers: { "User-Agent": CHROME_USER_AGENT } });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

const COMPLETE = `https://${TEST_SHOP}/apps/workspace/connect/complete?state=`;

/**
 * Follows a storefront URL (https://<shop>/apps/workspace/…) through the app proxy as `customerId` (null: anonymous),
 * the way Shopify forwards it: the query is kept and signed along with shop and logged_in_customer_id.
 */
async function storefront(location: string, customerId: string | null, shop = TEST_SHOP) {
  const url = new URL(location);
  const path = url.pathname.replace(/^\/apps\/workspace/, "");
  const res = await fetch(
    proxyUrl(h.app.url, path, { customerId, shop, extra: Object.fromEntries(url.searchParams) }),
    {
      redirect: "manual",
      headers: { "User-Agent": CHROME_USER_AGENT },
    },
  );
  return { status: res.status, location: res.headers.get("location"), text: await res.text(), headers: res.headers };
}

/** The callback's redirect to the completion step, checked for its shape. */
function completionOf(result: { status: number; location: string | null }) {
  expect(result.status).toBe(302);
  expect(result.location).toMatch(
    /^https:\/\/test-shop\.myshopify\.com\/apps\/workspace\/connect\/complete\?state=[\w-]+&proof=[\w-]+$/,
  );
  return result.location!;
}

/** What the callback left pending on the state row, decrypted (the test may look; nobody else can). */
async function pendingTokens(state: string) {
  const row = await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state } });
  expect(row.pendingTokensEnc).not.toBeNull();
  return JSON.parse(openFor(bindings.oauthState(row, "pendingTokensEnc"), row.pendingTokensEnc!, keyring)) as {
    accessToken: string;
    refreshToken: string;
  };
}

/** True while the service still honours this authorization. */
async function stillValidAtService(tokens: { accessToken: string; refreshToken: string }) {
  const outcome = await importOrder(
    emulatorSettings(h.emulator.url),
    new MemoryGrantStore({
      workspaceId: "unused",
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      accessTokenExpiresAt: null,
      scopes: ["orders:write", "shipments:write"],
      boundOrigins: serviceOrigins(emulatorSettings(h.emulator.url)),
    }),
    { ...ORDER, external_order_id: `probe-${randomBytes(4).toString("hex")}` },
    { idempotencyKey: `probe-${randomBytes(8).toString("hex")}` },
  );
  return outcome.ok;
}

const grantOf = (customerId: string, shop = TEST_SHOP) =>
  h.db.prisma.customerGrant.findUnique({ where: { shop_customerId: { shop, customerId } } });

async function connectViaHttp(customerId: string, shop = TEST_SHOP, name = "") {
  const t0 = performance.now();
  const authorize = await startFlow(customerId, shop, name);
  const t1 = performance.now();
  const location = await consent(authorize, "approve");
  const t2 = performance.now();
  const result = await callback(location);
  const t3 = performance.now();
  expect(result.location).toMatch(
    new RegExp(`^https://${shop.replace(/\./g, "\\.")}/apps/workspace/connect/complete\\?state=`),
  );
  const done = await storefront(result.location!, customerId, shop);
  const t4 = performance.now();
  expect(done.location).toBe(`https://${shop}/apps/workspace/connect?result=connected`);
  console.info(
    `connect over HTTP: start ${(t1 - t0).toFixed(0)} ms, consent ${(t2 - t1).toFixed(0)} ms, callback ${(t3 - t2).toFixed(0)} ms, completion ${(t4 - t3).toFixed(0)} ms`,
  );
  return { authorize, callbackUrl: location };
}

// ---- setup ----------------------------------------------------------------------------------------------------

beforeAll(async () => {
  const s = emulatorSettings(h.emulator.url);
  const saved = await saveSettings(TEST_SHOP, { ...s, environment: s.environment });
  expect(saved.status).toBe(200);
});

// ---- the happy path in Chromium --------------------------------------------------------------------------

describe("connect a workspace in the browser", () => {
  it("storefront page → consent → approve → back on the store, grant stored encrypted, shown on Customers", async () => {
    const context = await newContext(h.browser);
    const page = await context.newPage();
    await routeStorefront(page, {
      appUrl: h.app.url,
      customerId: "7001",
      customer: { name: "Ada Lovelace", email: "ada@example.com" },
    });

    const started = Date.now();
    await page.goto(`https://${TEST_SHOP}/apps/workspace/connect`);
    await page.waitForSelector("[data-status=not_connected]");
    await page.screenshot({ path: screenshotPath("connect-1-storefront"), fullPage: true });

    await page.click("[data-action=connect]");
    await page.waitForURL(`${h.emulator.url}/oauth/authorize**`);
    expect(await page.textContent("body")).toContain("asks to write data");
    const authorizeUrl = new URL(page.url());
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`${h.app.url}/connect/callback`);
    await page.screenshot({ path: screenshotPath("connect-2-consent"), fullPage: true });

    await page.click("button[value=approve]");
    await page.waitForURL(`https://${TEST_SHOP}/apps/workspace/connect?result=connected`);
    await page.waitForSelector("[data-result=connected]");
    expect(await page.textContent("[data-status=connected]")).toContain("ws-acme");
    await page.screenshot({ path: screenshotPath("connect-3-connected"), fullPage: true });
    console.info(`connect flow in Chromium: ${Date.now() - started} ms`);
    await context.close();

    // Stored encrypted: ciphertexts under the current key; the decrypted access token works at the service.
    const row = await grantOf("7001");
    expect(row).toMatchObject({
      workspaceId: "ws-acme",
      scopes: "orders:write shipments:write",
      status: "active",
      customerName: "Ada Lovelace",
      customerEmail: "ada@example.com",
    });
    expect(keyIdOf(row!.accessTokenEnc)).toBe("k1");
    expect(keyIdOf(row!.refreshTokenEnc!)).toBe("k1");
    const accessToken = openFor(bindings.customerGrant(row!, "accessTokenEnc"), row!.accessTokenEnc, keyring);
    expect(row!.accessTokenEnc).not.toContain(accessToken);
    const dbDump =
      JSON.stringify(await h.db.prisma.customerGrant.findMany()) +
      JSON.stringify(await h.db.prisma.oAuthState.findMany());
    expect(dbDump).not.toContain(accessToken);
    expect(dbDump).not.toContain(
      openFor(bindings.customerGrant(row!, "refreshTokenEnc"), row!.refreshTokenEnc!, keyring),
    );
    const store = createPrismaGrantStore(h.db.prisma, { shop: TEST_SHOP, customerId: "7001" }, { keyring });
    const imported = await importOrder(emulatorSettings(h.emulator.url), store, ORDER, {
      idempotencyKey: "flow-order-1",
    });
    expect(imported).toMatchObject({ ok: true, status: 201 });

    // The state row is used up and its verifier was encrypted.
    const states = await h.db.prisma.oAuthState.findMany({ where: { customerId: "7001" } });
    expect(states).toHaveLength(1);
    expect(states[0].usedAt).not.toBeNull();
    expect(states[0].exchangedAt).not.toBeNull();
    expect(states[0].pendingTokensEnc).toBeNull(); // erased once stored as the grant
    expect(keyIdOf(states[0].codeVerifierEnc)).toBe("k1");

    // The Customers page shows the grant.
    const adminContext = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const adminPage = await adminContext.newPage();
    const response = await adminPage.goto(await embeddedUrl(h.app.url, "/app/customers"));
    expect(response?.status()).toBe(200);
    await adminPage.waitForSelector(".Polaris-IndexTable");
    const text = await adminPage.textContent("body");
    expect(text).toContain("Ada Lovelace");
    expect(text).toContain("ws-acme");
    expect(text).toContain("orders:write, shipments:write");
    expect(text).toContain("Connected");
    await adminPage.screenshot({ path: screenshotPath("connect-4-customers"), fullPage: true });
    await adminContext.close();
  });

  it("sends an anonymous visitor to the store's own sign-in, legacy or current customer accounts", async () => {
    for (const [accountLoginUrl, expected] of [
      [undefined, `https://${TEST_SHOP}/account/login?return_url=%2Fapps%2Fworkspace%2Fconnect`],
      [
        "/customer_authentication/redirect?locale=en",
        `https://${TEST_SHOP}/customer_authentication/redirect?locale=en&return_url=%2Fapps%2Fworkspace%2Fconnect`,
      ],
    ] as const) {
      const context = await newContext(h.browser);
      const page = await context.newPage();
      await routeStorefront(page, { appUrl: h.app.url, customerId: null, accountLoginUrl });
      await page.goto(`https://${TEST_SHOP}/apps/workspace/connect`);
      await page.click("[data-status=signed_out] [data-action=sign-in]");
      await page.waitForSelector("[data-page=login]");
      expect(page.url()).toBe(expected);
      await context.close();
    }
  });
});

// ---- failure paths -------------------------------------------------------------------------------------------

describe("failure paths store nothing and say what happened", () => {
  it("anonymous visitor (GET and POST) → a sign-in page whose link the theme fills in", async () => {
    for (const method of ["GET", "POST"]) {
      const res = await fetch(proxyUrl(h.app.url, "/connect", { customerId: null }), {
        method,
        redirect: "manual",
        headers: { "User-Agent": CHROME_USER_AGENT },
      });
      expect(res.status).toBe(200);
      const body = await res.text();
      expect(body).toContain("{%- assign workspace_login = routes.account_login_url -%}");
      expect(body).toContain("return_url=%2Fapps%2Fworkspace%2Fconnect");
      expect(body).not.toContain("/account/login");
    }
    expect(await h.db.prisma.oAuthState.count({ where: { customerId: "" } })).toBe(0);
  });

  it("bad proxy signature → 400, nothing started", async () => {
    const before = await h.db.prisma.oAuthState.count();
    const forged = await fetch(proxyUrl(h.app.url, "/connect", { customerId: "7002", secret: "not-the-api-secret" }), {
      method: "POST",
      redirect: "manual",
    });
    expect(forged.status).toBe(400);
    // A genuine signature with the customer id changed afterwards.
    const url = new URL(proxyUrl(h.app.url, "/connect", { customerId: "7002" }));
    url.searchParams.set("logged_in_customer_id", "7003");
    expect((await fetch(url, { redirect: "manual" })).status).toBe(400);
    expect(await h.db.prisma.oAuthState.count()).toBe(before);
  });

  it("denied consent → result=denied", async () => {
    const authorize = await startFlow("7101");
    const res = await callback(await consent(authorize, "deny"));
    expect(res.status).toBe(302);
    expect(res.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=denied`);
    expect(await grantOf("7101")).toBeNull();
    // The store page turns the code into words.
    const page = await fetch(proxyUrl(h.app.url, "/connect", { customerId: "7101", extra: { result: "denied" } }));
    expect(await page.text()).toContain("You declined the connection");
  });

  it("tampered state → 400 page on the app, nothing stored", async () => {
    const authorize = await startFlow("7102");
    const location = new URL(await consent(authorize, "approve"));
    const state = location.searchParams.get("state")!;
    for (const forged of [
      state.slice(0, -1) + (state.endsWith("A") ? "B" : "A"),
      randomBytes(32).toString("base64url"),
      "",
    ]) {
      const tampered = new URL(location);
      tampered.searchParams.set("state", forged);
      const res = await callback(tampered.toString());
      expect(res.status).toBe(400);
      expect(res.text).toContain("This connection link is not valid");
    }
    expect(await grantOf("7102")).toBeNull();
    // The genuine callback still works afterwards: the forgeries did not consume anything.
    const completion = completionOf(await callback(location.toString()));
    expect((await storefront(completion, "7102")).location).toContain("result=connected");
  });

  it("expired state → result=expired", async () => {
    const authorize = await startFlow("7103");
    const location = await consent(authorize, "approve");
    // Eleven minutes later (the state lives ten).
    await h.db.prisma.oAuthState.update({
      where: { state: authorize.searchParams.get("state")! },
      data: { expiresAt: new Date(Date.now() - 60_000) },
    });
    const res = await callback(location);
    expect(res.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=expired`);
    expect(await grantOf("7103")).toBeNull();
  });

  it("replayed callback → result=already_used, the stored grant is untouched", async () => {
    const { callbackUrl } = await connectViaHttp("7104");
    const before = await grantOf("7104");
    const replay = await callback(callbackUrl);
    expect(replay.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=already_used`);
    const after = await grantOf("7104");
    expect(after).toEqual(before);
  });

  it("concurrent callbacks with the same state: exactly one connects", async () => {
    const authorize = await startFlow("7105");
    const location = await consent(authorize, "approve");
    const results = await Promise.all([callback(location), callback(location), callback(location)]);
    const codes = results.map((r) => new URL(r.location!).searchParams.get("result") ?? "completion").sort();
    expect(codes).toEqual(["already_used", "already_used", "completion"]);
    const completion = results.find((r) => r.location!.startsWith(COMPLETE))!;
    expect((await storefront(completion.location!, "7105")).location).toContain("result=connected");
    expect((await grantOf("7105"))?.tokenVersion).toBe(0);
  });

  it("failed token exchange (service error, or a forged code) → result=failed", async () => {
    const authorize = await startFlow("7106");
    const location = await consent(authorize, "approve");
    await fetch(`${h.emulator.url}/_emulator/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "POST", path: "/oauth/token", status: 500, body: { error: "server_error" } }),
    });
    const res = await callback(location);
    expect(res.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=failed`);
    expect(await grantOf("7106")).toBeNull();

    const second = await startFlow("7107");
    const genuine = new URL(await consent(second, "approve"));
    genuine.searchParams.set("code", "forged-code");
    expect((await callback(genuine.toString())).location).toContain("result=failed");
    expect(await grantOf("7107")).toBeNull();
  });

  it("a shop without settings tells the shopper plainly", async () => {
    const page = await fetch(proxyUrl(h.app.url, "/connect", { customerId: "1", shop: SHOP_B }));
    expect(await page.text()).toContain("not available at this store");
    const post = await fetch(proxyUrl(h.app.url, "/connect", { customerId: "1", shop: SHOP_B }), {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ csrf_token: csrfToken(`${SHOP_B}:1`, { secret: TEST_API_SECRET }) }),
    });
    expect(post.status).toBe(409);
    expect(await h.db.prisma.oAuthState.count({ where: { shop: SHOP_B } })).toBe(0);
  });
});

// ---- the completion step: bound to the customer who started ------------------------------------------------

describe("the completion step stores the grant only for the customer who started", () => {
  it("a victim (another logged-in customer) approving the attacker's link: nothing stored, tokens revoked at the service", async () => {
    // The attacker (7601) starts and copies the authorization URL; the victim approves it in their own browser.
    const authorize = await startFlow("7601");
    const state = authorize.searchParams.get("state")!;
    const completion = completionOf(await callback(await consent(authorize, "approve", "ws-globex")));
    const pending = await pendingTokens(state);
    expect(await stillValidAtService(pending)).toBe(true);

    // The victim's browser lands on the store's completion step, logged in as the victim (7602).
    const victim = await storefront(completion, "7602");
    expect(victim.status).toBe(302);
    expect(victim.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=wrong_customer`);
    expect(victim.headers.get("cache-control")).toBe("no-store");
    expect(victim.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await grantOf("7601")).toBeNull();
    expect(await grantOf("7602")).toBeNull();
    const row = await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state } });
    expect(row.pendingTokensEnc).toBeNull();
    expect(await stillValidAtService(pending)).toBe(false); // the authorization was revoked at the service
    const words = await storefront(victim.location!, "7602");
    expect(words.text).toContain('data-result="wrong_customer"');
    expect(words.text).toContain("started from a different customer account");

    // The attacker, who knows the state (it is in the URL they copied), gets nothing either: not with the
    // victim's completion link, and not with the state alone.
    expect((await storefront(completion, "7601")).location).toBe(
      `https://${TEST_SHOP}/apps/workspace/connect?result=already_used`,
    );
    expect((await storefront(`${COMPLETE}${state}`, "7601")).location).toBe(
      `https://${TEST_SHOP}/apps/workspace/connect?result=invalid_state`,
    );
    expect(await grantOf("7601")).toBeNull();
    // The pending tokens never reached the browser.
    for (const answer of [victim, words])
      expect(JSON.stringify([answer.text, answer.location])).not.toContain(pending.accessToken);
  });

  it("the attacker cannot finish with the state alone before the victim's browser does", async () => {
    const authorize = await startFlow("7611");
    const state = authorize.searchParams.get("state")!;
    const completion = completionOf(await callback(await consent(authorize, "approve")));
    for (const guess of [
      `${COMPLETE}${state}`,
      `${COMPLETE}${state}&proof=${randomBytes(32).toString("base64url")}`,
      completion.replace(/proof=[\w-]+/, "proof="),
    ]) {
      expect((await storefront(guess, "7611")).location).toBe(
        `https://${TEST_SHOP}/apps/workspace/connect?result=invalid_state`,
      );
    }
    expect(await grantOf("7611")).toBeNull();
    expect((await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state } })).pendingTokensEnc).not.toBeNull();
    // (Here the browser that approved is the owner's: it finishes.)
    expect((await storefront(completion, "7611")).location).toBe(
      `https://${TEST_SHOP}/apps/workspace/connect?result=connected`,
    );
  });

  it("in Chromium: the victim ends on the store with plain words, nothing connected", async () => {
    const authorize = await startFlow("7621");
    const context = await newContext(h.browser);
    const page = await context.newPage();
    await routeStorefront(page, {
      appUrl: h.app.url,
      customerId: "7622",
      customer: { name: "Victim", email: "victim@example.com" },
    });
    await page.goto(authorize.toString());
    await page.click("button[value=approve]");
    await page.waitForURL(`https://${TEST_SHOP}/apps/workspace/connect?result=wrong_customer`);
    await page.waitForSelector("[data-result=wrong_customer]");
    expect(await page.textContent("[data-result=wrong_customer]")).toContain("different customer account");
    expect(await page.$("[data-status=not_connected]")).not.toBeNull();
    await page.screenshot({ path: screenshotPath("connect-wrong-customer"), fullPage: true });
    await context.close();
    expect(await grantOf("7621")).toBeNull();
    expect(await grantOf("7622")).toBeNull();
    expect(
      (await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state: authorize.searchParams.get("state")! } }))
        .pendingTokensEnc,
    ).toBeNull();
  });

  it("an anonymous shopper is sent to log in and back to the completion step; the owner then finishes", async () => {
    const authorize = await startFlow("7631");
    const state = authorize.searchParams.get("state")!;
    const completion = completionOf(await callback(await consent(authorize, "approve")));
    const anonymous = await storefront(completion, null);
    expect(anonymous.status).toBe(200); // a sign-in page, its link from the theme's routes.account_login_url
    const back = new URL(completion);
    const returnUrl = decodeURIComponent(/return_url=([^"]+)"/.exec(anonymous.text)![1]);
    expect(returnUrl).toBe(back.pathname + back.search);
    expect(anonymous.headers.get("referrer-policy")).toBe("no-referrer");
    // Nothing stored or used up yet.
    expect(await grantOf("7631")).toBeNull();
    expect((await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state } })).pendingTokensEnc).not.toBeNull();
    // Logged in, Shopify sends them to return_url: the same completion step, now as the owner.
    const done = await storefront(`https://${TEST_SHOP}${returnUrl}`, "7631");
    expect(done.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=connected`);
    expect(await grantOf("7631")).toMatchObject({ status: "active", workspaceId: "ws-acme" });

    // In Chromium, the anonymous shopper ends on the store's login page with the completion step to return to.
    const second = await startFlow("7632");
    const context = await newContext(h.browser);
    const page = await context.newPage();
    await routeStorefront(page, { appUrl: h.app.url, customerId: null });
    await page.goto(second.toString());
    await page.click("button[value=approve]");
    await page.click("[data-status=signed_out] [data-action=sign-in]");
    await page.waitForSelector("[data-page=login]");
    expect(await page.textContent("[data-page=login]")).toMatch(
      /return_url=\/apps\/workspace\/connect\/complete\?state=[\w-]+&proof=[\w-]+$/,
    );
    await context.close();
    expect(await grantOf("7632")).toBeNull();
  });

  it("completing twice: the second says already used and changes nothing", async () => {
    const authorize = await startFlow("7641");
    const completion = completionOf(await callback(await consent(authorize, "approve")));
    expect((await storefront(completion, "7641")).location).toBe(
      `https://${TEST_SHOP}/apps/workspace/connect?result=connected`,
    );
    const before = await grantOf("7641");
    const again = await storefront(completion, "7641");
    expect(again.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=already_used`);
    expect(await grantOf("7641")).toEqual(before);
    // Concurrent completions of a fresh flow: exactly one connects.
    const next = await startFlow("7642");
    const nextCompletion = completionOf(await callback(await consent(next, "approve")));
    const results = await Promise.all([0, 1, 2].map(() => storefront(nextCompletion, "7642")));
    expect(results.map((r) => new URL(r.location!).searchParams.get("result")).sort()).toEqual([
      "already_used",
      "already_used",
      "connected",
    ]);
    expect((await grantOf("7642"))?.tokenVersion).toBe(0);
  });

  it("an expired pending state: nothing stored, tokens revoked and erased", async () => {
    const authorize = await startFlow("7651");
    const state = authorize.searchParams.get("state")!;
    const completion = completionOf(await callback(await consent(authorize, "approve")));
    const pending = await pendingTokens(state);
    await h.db.prisma.oAuthState.update({ where: { state }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const late = await storefront(completion, "7651");
    expect(late.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=expired`);
    expect(await grantOf("7651")).toBeNull();
    expect((await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state } })).pendingTokensEnc).toBeNull();
    expect(await stillValidAtService(pending)).toBe(false);
    // An unknown or malformed state: plain words, nothing else.
    for (const bad of [
      `${COMPLETE}${randomBytes(32).toString("base64url")}&proof=x`,
      `${COMPLETE}%7B%7B`,
      `https://${TEST_SHOP}/apps/workspace/connect/complete`,
    ]) {
      expect((await storefront(bad, "7651")).location).toBe(
        `https://${TEST_SHOP}/apps/workspace/connect?result=invalid_state`,
      );
    }
  });
});

// ---- Customers page --------------------------------------------------------------------------------------------

describe("Customers page", () => {
  const loaderData = async (query = "", shop = TEST_SHOP) => {
    const res = await admin(dataPath(`/app/customers?${query.replace(/^&/, "")}`, "routes/app.customers"), { shop });
    expect(res.status).toBe(200);
    return (await readData(res)) as {
      grants: { items: Array<Record<string, unknown>>; total: number; page: number; pageCount: number };
    };
  };

  it("searches and paginates; shows the customer id when no name is known", async () => {
    for (let i = 0; i < 23; i++) {
      await storeGrant(
        h.db.prisma,
        {
          shop: TEST_SHOP,
          customerId: String(8000 + i),
          customerName: i === 0 ? null : `Bulk Customer ${i}`,
          workspaceId: "ws-globex",
          tokens: {
            accessToken: `bulk-at-${i}`,
            refreshToken: null,
            accessTokenExpiresAt: null,
            scopes: ["orders:write"],
          },
        },
        { keyring, now: new Date(Date.UTC(2026, 0, 1, 0, i)) },
      );
    }
    const all = await loaderData();
    expect(all.grants.items).toHaveLength(20);
    expect(all.grants.pageCount).toBeGreaterThanOrEqual(2);
    const last = await loaderData(`&page=${all.grants.pageCount}`);
    expect(last.grants.page).toBe(all.grants.pageCount);
    const search = await loaderData("&q=lovelace");
    expect(search.grants.items.map((g) => g.displayName)).toEqual(["Ada Lovelace"]);
    const unnamed = await loaderData("&q=8000");
    expect(unnamed.grants.items[0]).toMatchObject({ displayName: "Customer 8000", customerId: "8000" });
    // No token material in what the page receives.
    expect(JSON.stringify(all)).not.toMatch(/bulk-at-|accessToken|enc:v\d/);
  });

  it("search matches % and _ literally; a NUL in the search or the grant id is a clear answer, not a 500", async () => {
    for (const [customerId, customerName] of [
      ["8101", "Percent 100% Sure"],
      ["8102", "Under_Score"],
    ]) {
      await storeGrant(
        h.db.prisma,
        {
          shop: TEST_SHOP,
          customerId,
          customerName,
          workspaceId: "ws-literal",
          tokens: { accessToken: "lit", refreshToken: null, accessTokenExpiresAt: null, scopes: ["orders:write"] },
        },
        { keyring },
      );
    }
    const names = async (q: string) =>
      (await loaderData(`&q=${encodeURIComponent(q)}`)).grants.items.map((g) => g.displayName);
    expect(await names("%")).toEqual(["Percent 100% Sure"]);
    expect(await names("100%")).toEqual(["Percent 100% Sure"]);
    expect(await names("_")).toEqual(["Under_Score"]);
    expect(await names("Under_")).toEqual(["Under_Score"]);
    expect(await names("\\")).toEqual([]);
    expect(await names("Under\u0000_")).toEqual(["Under_Score"]);

    const nul = await admin(CUSTOMERS_DATA, {
      method: "POST",
      body: new URLSearchParams({ intent: "disconnect", grantId: "a\u0000b" }),
    });
    expect(nul.status).toBe(404);
    expect(await readData(nul)).toMatchObject({ ok: false, message: "No such connected customer." });
  });

  it("the page's links and forms carry no Shopify session token", async () => {
    for (let i = 0; i < 21; i++) {
      await storeGrant(
        h.db.prisma,
        {
          shop: TEST_SHOP,
          customerId: String(8200 + i),
          workspaceId: "ws-pages",
          tokens: {
            accessToken: `page-at-${i}`,
            refreshToken: null,
            accessTokenExpiresAt: null,
            scopes: ["orders:write"],
          },
        },
        { keyring },
      );
    }
    const url = await embeddedUrl(h.app.url, "/app/customers");
    const idToken = new URL(url).searchParams.get("id_token")!;
    const res = await fetch(url, { headers: { "User-Agent": CHROME_USER_AGENT } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("page=2");
    expect(html).not.toContain(idToken);
  });

  it("a grant whose refresh fails is marked needs reconnect and shown so", async () => {
    await connectViaHttp("7201", TEST_SHOP, "Grace Hopper");
    const settings = emulatorSettings(h.emulator.url);
    const row = await grantOf("7201");
    // The customer's authorization ends at the service; our access token has expired.
    await revokeToken(
      settings,
      openFor(bindings.customerGrant(row!, "refreshTokenEnc"), row!.refreshTokenEnc!, keyring),
      { tokenTypeHint: "refresh_token" },
    );
    await h.db.prisma.customerGrant.update({
      where: { id: row!.id },
      data: { accessTokenExpiresAt: new Date(Date.now() - 1000) },
    });
    const outcome = await importOrder(
      settings,
      grantStoreFor(h.db.prisma, { shop: TEST_SHOP, customerId: "7201" }, { keyring }),
      ORDER,
      {
        idempotencyKey: "needs-reconnect-1",
      },
    );
    expect(outcome).toMatchObject({ ok: false, kind: "reconnect_required" });
    const data = await loaderData("&q=Hopper");
    expect(data.grants.items[0]).toMatchObject({ status: "needs_reconnect" });
    expect(String(data.grants.items[0].statusReason)).toContain("reconnect");

    const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const page = await context.newPage();
    const url = new URL(await embeddedUrl(h.app.url, "/app/customers"));
    url.searchParams.set("q", "Hopper");
    await page.goto(url.toString());
    await page.waitForSelector("text=Needs reconnect");
    await page.screenshot({ path: screenshotPath("customers-needs-reconnect"), fullPage: true });
    await context.close();

    // The storefront tells the shopper too.
    const store = await fetch(proxyUrl(h.app.url, "/connect", { customerId: "7201" }));
    expect(await store.text()).toContain('data-status="needs_reconnect"');
  });

  it("disconnect revokes at the service and deletes the tokens", async () => {
    await connectViaHttp("7301", TEST_SHOP, "Alan Turing");
    const row = await grantOf("7301");
    const tokens = {
      workspaceId: row!.workspaceId,
      accessToken: openFor(bindings.customerGrant(row!, "accessTokenEnc"), row!.accessTokenEnc, keyring),
      refreshToken: openFor(bindings.customerGrant(row!, "refreshTokenEnc"), row!.refreshTokenEnc!, keyring),
      accessTokenExpiresAt: null,
      scopes: row!.scopes.split(" "),
    };
    // In the browser: Disconnect, then Confirm disconnect.
    const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const page = await context.newPage();
    const url = new URL(await embeddedUrl(h.app.url, "/app/customers"));
    url.searchParams.set("q", "Turing");
    await page.goto(url.toString());
    await page.getByRole("button", { name: "Disconnect Alan Turing" }).click();
    await page.getByRole("button", { name: "Confirm disconnect: Alan Turing" }).click();
    await page.waitForSelector("text=revoked at the service");
    await page.screenshot({ path: screenshotPath("customers-disconnected"), fullPage: true });
    await context.close();
    expect(await grantOf("7301")).toBeNull();
    // The old tokens no longer work at the service.
    const outcome = await importOrder(
      emulatorSettings(h.emulator.url),
      new MemoryGrantStore({ ...tokens, boundOrigins: serviceOrigins(emulatorSettings(h.emulator.url)) }),
      ORDER,
      { idempotencyKey: "after-disconnect" },
    );
    expect(outcome.ok).toBe(false);

    const missing = await admin(CUSTOMERS_DATA, {
      method: "POST",
      body: new URLSearchParams({ intent: "disconnect", grantId: row!.id }),
    });
    expect(missing.status).toBe(404);
    const bad = await admin(CUSTOMERS_DATA, { method: "POST", body: new URLSearchParams({ intent: "nope" }) });
    expect(bad.status).toBe(400);
    expect(await readData(bad)).toMatchObject({ ok: false, message: expect.stringContaining("disconnect") });
  });
});

// ---- tenant isolation ------------------------------------------------------------------------------------------

describe("tenant isolation", () => {
  it("shop B's session sees none of shop A's customers and cannot disconnect them", async () => {
    await storeGrant(
      h.db.prisma,
      {
        shop: TEST_SHOP,
        customerId: "7501",
        customerName: "Shop A Only",
        workspaceId: "ws-acme",
        tokens: { accessToken: "a-only", refreshToken: null, accessTokenExpiresAt: null, scopes: ["orders:write"] },
      },
      { keyring },
    );
    const a = await grantOf("7501");
    const res = await admin(dataPath("/app/customers?q=Shop%20A", "routes/app.customers"), { shop: SHOP_B });
    const data = await readData(res);
    expect(data.grants.total).toBe(0);
    expect(JSON.stringify(data)).not.toContain("7501");
    expect((await readData(await admin(CUSTOMERS_DATA))).grants.total).toBeGreaterThan(0);

    const attempt = await admin(CUSTOMERS_DATA, {
      method: "POST",
      shop: SHOP_B,
      body: new URLSearchParams({ intent: "disconnect", grantId: a!.id }),
    });
    expect(attempt.status).toBe(404);
    expect(await grantOf("7501")).not.toBeNull();
  });

  it("shop B's session cannot read or use shop A's settings", async () => {
    const res = await admin(SETTINGS_DATA, { shop: SHOP_B });
    const data = await readData(res);
    expect(data.settings).toMatchObject({ configured: false, clientId: "", authUrl: "", clientSecret: { set: false } });
    expect(JSON.stringify(data)).not.toContain(h.emulator.url);
    const check = await admin(SETTINGS_DATA, {
      method: "POST",
      shop: SHOP_B,
      body: new URLSearchParams({ intent: "check" }),
    });
    expect((await readData(check)).check).toMatchObject({
      ok: false,
      message: expect.stringContaining("Not configured"),
    });
  });

  it("the same customer id in shop B is a different customer; B's proxy cannot complete A's state", async () => {
    // Shop A's customer 7001 is connected; shop B's customer 7001 is not, whatever the URL claims.
    const pageB = await fetch(
      proxyUrl(h.app.url, "/connect", { customerId: "7001", shop: SHOP_B, extra: { result: "connected" } }),
    );
    const textB = await pageB.text();
    expect(textB).not.toContain('data-status="connected"');
    expect(textB).not.toContain("Your workspace is connected");

    // A state made for shop A, carried to shop B's proxy with a genuine code: nothing is completed or consumed.
    const authorize = await startFlow("7401");
    const callbackUrl = new URL(await consent(authorize, "approve"));
    const extra = { code: callbackUrl.searchParams.get("code")!, state: callbackUrl.searchParams.get("state")! };
    for (const method of ["GET", "POST"]) {
      await fetch(proxyUrl(h.app.url, "/connect", { customerId: "7401", shop: SHOP_B, extra }), {
        method,
        redirect: "manual",
      });
    }
    expect(await grantOf("7401", SHOP_B)).toBeNull();
    expect(await grantOf("7401")).toBeNull();
    const state = await h.db.prisma.oAuthState.findUnique({ where: { state: extra.state } });
    expect(state).toMatchObject({ shop: TEST_SHOP, usedAt: null });

    // Through the callback, it goes on to shop A's completion step only; shop B's proxy cannot finish it either.
    const completion = completionOf(await callback(callbackUrl.toString()));
    const viaB = await storefront(completion, "7401", SHOP_B);
    expect(viaB.location).toBe(`https://${SHOP_B}/apps/workspace/connect?result=invalid_state`);
    expect(await grantOf("7401", SHOP_B)).toBeNull();
    expect(
      (await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state: extra.state } })).pendingTokensEnc,
    ).not.toBeNull();
    expect((await storefront(completion, "7401")).location).toBe(
      `https://${TEST_SHOP}/apps/workspace/connect?result=connected`,
    );
    expect(await grantOf("7401")).not.toBeNull();
    expect(await grantOf("7401", SHOP_B)).toBeNull();
  });
});
