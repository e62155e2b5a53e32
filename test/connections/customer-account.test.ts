// The customer account extension's backend over HTTP (app/routes/customer-account.*): Shopify's session token is
// the only source of shop and customer; refusals are 401s a cross-origin extension can read; one shop or customer
// never reads or changes another's; connecting from the account page runs the real OAuth flow at the emulator,
// completes on the store's app proxy step only for the customer who started it, once, before the state expires, and
// comes back to the profile under Shopify's account root, where the pages ask how the attempt ended.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { bindings, openFor, parseKeyring } from "~/crypto/secret-box.server";
import { ATTEMPT_TOLD_MS } from "~/connections/account-profile.server";
import { importOrder } from "~/service/client.server";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { injectFault } from "../helpers/emulator";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { dataPath, readData } from "../helpers/route-data";
import { mintCustomerToken, mintSessionToken, proxyUrl, TEST_SHOP } from "../helpers/shopify";

// The test shop's Admin API endpoint, as MSW matches it.
const shopAdminApi = graphql.link(`https://${TEST_SHOP}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`);

const KEYS = `k1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);
const SHOP_B = "shop-b.myshopify.com";
const ACCOUNT_URL = "https://shopify.com/48291/account";
/** Where a shopper comes back to from the service: the profile, under the root the Admin API gives. */
const PROFILE_PAGE = `${ACCOUNT_URL}/profile`;
const EXTENSION_ORIGIN = "https://extensions.shopifycdn.com";

// Shopify's Admin API (MSW): where the test shop's customer accounts live; shop B's answer is an error.
const shopify = setupServer(
  shopAdminApi.query("CustomerAccounts", () =>
    HttpResponse.json({
      data: { shop: { customerAccountsV2: { customerAccountsVersion: "NEW_CUSTOMER_ACCOUNTS", url: ACCOUNT_URL } } },
    }),
  ),
  shopAdminApi.query("CustomerProfile", () =>
    HttpResponse.json({
      data: { customer: { displayName: "Ada Lovelace", defaultEmailAddress: { emailAddress: "ada@example.com" } } },
    }),
  ),
);
beforeAll(() => shopify.listen({ onUnhandledRequest: "bypass" }));
afterAll(() => shopify.close());

const h = withHarness({
  shops: [TEST_SHOP, SHOP_B],
  keyring,
  app: { env: { ENCRYPTION_KEYS: KEYS } },
  emulator: "oauth",
});

// ---- drivers ----------------------------------------------------------------------------------------------------

/** A request as the extension's fetch makes it: cross-origin, the session token as a bearer token. */
async function account(path: string, token: string | null, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(new URL(path, h.app.url), {
    method: init.method ?? (init.body ? "POST" : "GET"),
    headers: {
      Origin: EXTENSION_ORIGIN,
      "User-Agent": CHROME_USER_AGENT, // Shopify's library answers 410 to what looks like a bot
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(init.body ? { "Content-Type": "application/json" } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
    redirect: "manual",
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {
    /* a non-JSON body stays {} and fails the test's expectations */
  }
  return { status: res.status, headers: res.headers, body };
}

const profile = async (customerId: string, shop = TEST_SHOP) =>
  account("/customer-account/connection", await mintCustomerToken(customerId, shop));
const post = async (customerId: string, body: unknown, shop = TEST_SHOP) =>
  account("/customer-account/connection", await mintCustomerToken(customerId, shop), { body });

/** Connect from the Connect workspace page up to the callback; returns where the callback sends the browser. */
async function consentFor(customerId: string, decision: "approve" | "deny" = "approve") {
  const started = await post(customerId, { intent: "connect" });
  expect(started.status).toBe(200);
  const authorize = new URL(String(started.body.authorizationUrl));
  expect(authorize.origin).toBe(h.emulator.url);
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  const form = new URLSearchParams(authorize.searchParams);
  form.set("workspace_id", "ws-acme");
  form.set("decision", decision);
  const consent = await fetch(new URL("/oauth/authorize", h.emulator.url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
    redirect: "manual",
  });
  const callback = await fetch(consent.headers.get("location")!, {
    redirect: "manual",
    headers: { "User-Agent": CHROME_USER_AGENT },
  });
  expect(callback.status).toBe(302);
  return { back: new URL(callback.headers.get("location")!), state: authorize.searchParams.get("state")! };
}

/**
 * The store's completion step (https://<shop>/apps/workspace/connect/complete?…) as Shopify's app proxy forwards it
 * for the signed-in `customerId`: the query kept and signed with shop and logged_in_customer_id. Returns the redirect.
 */
async function completeOnStore(back: URL, customerId: string | null, shop = TEST_SHOP) {
  expect(`${back.origin}${back.pathname}`).toBe(`https://${TEST_SHOP}/apps/workspace/connect/complete`);
  const res = await fetch(
    proxyUrl(h.app.url, "/connect/complete", { customerId, shop, extra: Object.fromEntries(back.searchParams) }),
    { redirect: "manual", headers: { "User-Agent": CHROME_USER_AGENT } },
  );
  return { status: res.status, location: res.headers.get("location") };
}

const grantOf = (customerId: string, shop = TEST_SHOP) =>
  h.db.prisma.customerGrant.findUnique({ where: { shop_customerId: { shop, customerId } } });

async function stillValidAtService(tokens: { accessToken: string; refreshToken: string }) {
  const outcome = await importOrder(
    emulatorSettings(h.emulator.url),
    new MemoryGrantStore({
      workspaceId: "unused",
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      accessTokenExpiresAt: null,
      scopes: ["orders:write"],
    }),
    {
      external_order_id: `probe-${randomBytes(4).toString("hex")}`,
      ordered_at: "2026-11-01T10:00:00Z",
      lines: [{ external_line_id: "l", title: "Mug", quantity: 1 }],
    },
    { idempotencyKey: `probe-${randomBytes(8).toString("hex")}` },
  );
  return outcome.ok;
}

async function connect(customerId: string) {
  const { back } = await consentFor(customerId);
  expect((await completeOnStore(back, customerId)).location).toBe(PROFILE_PAGE);
  expect((await profile(customerId)).body).toMatchObject({ status: "connected", workspaceId: "ws-acme" });
}

beforeAll(async () => {
  const s = emulatorSettings(h.emulator.url);
  const res = await fetch(new URL(dataPath("/app/settings", "routes/app.settings"), h.app.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${await mintSessionToken(TEST_SHOP)}`, "User-Agent": CHROME_USER_AGENT },
    body: new URLSearchParams({ intent: "save", ...s, environment: s.environment }),
  });
  expect(res.status, JSON.stringify(await readData(res))).toBe(200);
});

// ---- the admin's setup guide -------------------------------------------------------------------------------------

describe("setup guide", () => {
  const surface = async (shop: string) => {
    const res = await fetch(new URL(dataPath("/app", "routes/app._index"), h.app.url), {
      headers: { Authorization: `Bearer ${await mintSessionToken(shop)}`, "User-Agent": CHROME_USER_AGENT },
    });
    expect(res.status).toBe(200);
    return ((await readData(res)) as { surface: string }).surface;
  };

  it("says where Connect workspace goes from the store's customerAccountsV2 (before anyone connected)", async () => {
    expect(await surface(TEST_SHOP)).toBe("customer_accounts");
    shopify.use(
      shopAdminApi.query("CustomerAccounts", () =>
        HttpResponse.json({
          data: { shop: { customerAccountsV2: { customerAccountsVersion: "CLASSIC", url: ACCOUNT_URL } } },
        }),
      ),
    );
    try {
      expect(await surface(TEST_SHOP)).toBe("legacy_accounts");
    } finally {
      shopify.resetHandlers();
    }
    expect(await surface(SHOP_B)).toBe("unknown"); // Shopify did not say: the guide names both
  });
});

// ---- the session token ------------------------------------------------------------------------------------------

describe("session token", () => {
  const refused = async (token: string | null, label: string) => {
    for (const [path, body] of [
      ["/customer-account/connection", undefined],
      ["/customer-account/connection", { intent: "connect" }],
      ["/customer-account/orders/5001", undefined],
    ] as const) {
      const res = await account(path, token, { body });
      expect(res.status, `${label} ${path}`).toBe(401);
      expect(res.headers.get("access-control-allow-origin"), label).toBe("*");
      expect(res.headers.get("access-control-allow-headers")).toContain("Authorization");
      expect(res.body).toEqual({ error: "unauthorized", message: "Sign in to your account again." });
    }
  };

  it("missing, expired, wrongly signed, wrong-audience or customer-less tokens → 401 with CORS headers, nothing started", async () => {
    const before = await h.db.prisma.oAuthState.count();
    await refused(null, "missing");
    await refused("not-a-jwt", "garbage");
    await refused(
      await mintCustomerToken("8001", TEST_SHOP, { lifetimeSeconds: -60, issuedAgoSeconds: 600 }),
      "expired",
    );
    await refused(await mintCustomerToken("8001", TEST_SHOP, { secret: "another-apps-secret" }), "wrong signature");
    await refused(await mintCustomerToken("8001", TEST_SHOP, { apiKey: "another-apps-key" }), "wrong audience");
    await refused(await mintSessionToken(TEST_SHOP), "an admin token (sub is a staff id, not a customer)");
    expect(await h.db.prisma.oAuthState.count()).toBe(before);
  });

  it("answers the CORS preflight", async () => {
    const res = await fetch(new URL("/customer-account/connection", h.app.url), {
      method: "OPTIONS",
      headers: {
        Origin: EXTENSION_ORIGIN,
        "User-Agent": CHROME_USER_AGENT,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("a valid token gets CORS headers and the customer's own status", async () => {
    const res = await profile("8001");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({ status: "not_connected", attempt: null });
  });

  it("a shop without service settings answers not_configured, and refuses to connect", async () => {
    expect((await profile("8001", SHOP_B)).body).toEqual({ status: "not_configured", attempt: null });
    const res = await post("8001", { intent: "connect" }, SHOP_B);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("not_configured");
    expect(await h.db.prisma.oAuthState.count({ where: { shop: SHOP_B } })).toBe(0);
  });

  it("bad bodies → 400 in the same JSON shape", async () => {
    const token = await mintCustomerToken("8001");
    for (const body of [{ intent: "nope" }, { intent: "complete", state: "x", proof: "y" }, ["connect"]]) {
      const res = await account("/customer-account/connection", token, { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("bad_request");
    }
  });
});

// ---- connecting and disconnecting from the account page -----------------------------------------------------

describe("connect from the account page", () => {
  it("consent goes on to the store's completion step; the same customer completes and comes back to the profile, connected", async () => {
    const { back, state } = await consentFor("8001");
    expect(back.searchParams.get("state")).toBe(state);
    expect(await grantOf("8001")).toBeNull(); // pending until the store's step completes it
    expect((await profile("8001")).body).toEqual({ status: "not_connected", attempt: null });

    const done = await completeOnStore(back, "8001");
    expect(done).toEqual({ status: 302, location: PROFILE_PAGE }); // Shopify's account root, nothing in the query
    const grant = await grantOf("8001");
    expect(grant).toMatchObject({ status: "active", customerName: "Ada Lovelace" });
    expect((await profile("8001")).body).toMatchObject({
      status: "connected",
      workspaceId: "ws-acme",
      scopes: ["orders:write", "shipments:write"],
      attempt: { result: "connected", finishedAt: expect.any(String) },
    });

    // Replayed: nothing changes, and the attempt's outcome stays the first one.
    expect((await completeOnStore(back, "8001")).location).toBe(PROFILE_PAGE);
    expect(await grantOf("8001")).toEqual(grant);
    expect((await profile("8001")).body).toMatchObject({ attempt: { result: "connected" } });
  });

  it("the state is bound to the customer: another customer completing it stores nothing, the tokens are revoked, each is told", async () => {
    const { back, state } = await consentFor("8002");
    const row = await h.db.prisma.oAuthState.findUniqueOrThrow({ where: { state } });
    expect(row).toMatchObject({ shop: TEST_SHOP, customerId: "8002" });
    const pending = JSON.parse(openFor(bindings.oauthState(row, "pendingTokensEnc"), row.pendingTokensEnc!, keyring));

    const other = await completeOnStore(back, "8003");
    // The other customer is told on the store's Connect page, not sent to the starter's account.
    expect(other.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=wrong_customer`);
    expect(await grantOf("8002")).toBeNull();
    expect(await grantOf("8003")).toBeNull();
    expect(await stillValidAtService(pending)).toBe(false);
    expect((await profile("8002")).body).toMatchObject({
      status: "not_connected",
      attempt: { result: "wrong_customer" },
    });
    expect((await profile("8003")).body).toEqual({ status: "not_connected", attempt: null }); // not theirs to read
    // The starter cannot pick it up afterwards either.
    await completeOnStore(back, "8002");
    expect(await grantOf("8002")).toBeNull();
  });

  it("the same customer id at another shop cannot complete it; the right one still can", async () => {
    const { back } = await consentFor("8004");
    const foreign = await completeOnStore(back, "8004", SHOP_B);
    expect(foreign.location).toBe(`https://${SHOP_B}/apps/workspace/connect?result=invalid_state`);
    expect(await grantOf("8004", SHOP_B)).toBeNull();
    expect(await grantOf("8004")).toBeNull();
    expect((await completeOnStore(back, "8004")).location).toBe(PROFILE_PAGE);
    expect(await grantOf("8004")).not.toBeNull();
  });

  it("a wrong proof or a made-up state changes nothing", async () => {
    const { back } = await consentFor("8005");
    const state = back.searchParams.get("state")!;
    const proof = back.searchParams.get("proof")!;
    const at = (params: Record<string, string>) =>
      new URL(`https://${TEST_SHOP}/apps/workspace/connect/complete?${new URLSearchParams(params)}`);
    for (const params of <Record<string, string>[]>[
      { state, proof: randomBytes(32).toString("base64url") },
      { state: randomBytes(32).toString("base64url"), proof },
      { state },
    ]) {
      const res = await completeOnStore(at(params), "8005");
      expect(res.location).toBe(`https://${TEST_SHOP}/apps/workspace/connect?result=invalid_state`);
    }
    expect(await grantOf("8005")).toBeNull();
    expect((await completeOnStore(back, "8005")).location).toBe(PROFILE_PAGE);
    expect(await grantOf("8005")).not.toBeNull();
  });

  it("completion after the state expired stores nothing, and the account pages are told", async () => {
    const { back, state } = await consentFor("8006");
    await h.db.prisma.oAuthState.update({ where: { state }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await completeOnStore(back, "8006")).location).toBe(PROFILE_PAGE);
    expect(await grantOf("8006")).toBeNull();
    expect((await profile("8006")).body).toMatchObject({ attempt: { result: "expired" } });
  });

  it("declining at the service comes straight back to the profile; the pages ask and are told", async () => {
    const { back } = await consentFor("8007", "deny");
    expect(back.toString()).toBe(PROFILE_PAGE);
    expect(await grantOf("8007")).toBeNull();
    expect((await profile("8007")).body).toMatchObject({ status: "not_connected", attempt: { result: "denied" } });
  });

  it("an attempt's outcome is told for ten minutes, then no longer", async () => {
    await consentFor("8009", "deny");
    await h.db.prisma.oAuthState.updateMany({
      where: { customerId: "8009" },
      data: { finishedAt: new Date(Date.now() - ATTEMPT_TOLD_MS - 1000) },
    });
    expect((await profile("8009")).body).toEqual({ status: "not_connected", attempt: null });
  });

  it("disconnect revokes at the service and deletes the tokens; another shop's same customer id changes nothing", async () => {
    await connect("8008");
    const row = (await grantOf("8008"))!;
    const tokens = {
      accessToken: openFor(bindings.customerGrant(row, "accessTokenEnc"), row.accessTokenEnc, keyring),
      refreshToken: openFor(bindings.customerGrant(row, "refreshTokenEnc"), row.refreshTokenEnc!, keyring),
    };

    const foreign = await post("8008", { intent: "disconnect" }, SHOP_B);
    expect(foreign.body).toMatchObject({ disconnected: false, status: "not_configured" });
    expect(await grantOf("8008")).not.toBeNull();

    const done = await post("8008", { intent: "disconnect" });
    expect(done.body).toMatchObject({ disconnected: true, status: "not_connected" });
    expect(await grantOf("8008")).toBeNull();
    expect(await stillValidAtService(tokens)).toBe(false);
  });

  it("disconnect while the service refuses the revocation: deleted here, the revocation queued for the worker", async () => {
    await connect("8010");
    const queued = await h.db.prisma.tokenRevocation.count();
    await injectFault(h.emulator, { method: "POST", path: "/oauth/revoke", status: 503, times: 1 });
    const done = await post("8010", { intent: "disconnect" });
    expect(done.body).toMatchObject({ disconnected: true, status: "not_connected" });
    expect(await grantOf("8010")).toBeNull();
    expect(await h.db.prisma.tokenRevocation.count()).toBe(queued + 1);
  });
});

// ---- order status ---------------------------------------------------------------------------------------------

describe("order status", () => {
  beforeAll(async () => {
    const rows = [
      {
        shop: TEST_SHOP,
        kind: "order",
        externalId: "5001",
        orderId: "5001",
        customerId: "8101",
        state: "imported",
        orderName: "#1001",
      },
      { shop: TEST_SHOP, kind: "shipment", externalId: "6001", orderId: "5001", customerId: "8101", state: "imported" },
      {
        shop: TEST_SHOP,
        kind: "shipment",
        externalId: "6002",
        orderId: "5001",
        customerId: "8101",
        state: "failed",
        reason: "internal words",
      },
      {
        shop: TEST_SHOP,
        kind: "order",
        externalId: "5002",
        orderId: "5002",
        customerId: "8102",
        state: "imported",
        orderName: "#1002",
      },
      {
        shop: TEST_SHOP,
        kind: "order",
        externalId: "5003",
        orderId: "5003",
        customerId: "8101",
        state: "waiting",
        reasonCode: "needs_reconnect" as const,
      },
    ];
    for (const data of rows) await h.db.prisma.syncRecord.create({ data });
  });

  const status = async (customerId: string, orderId: string, shop = TEST_SHOP) =>
    account(`/customer-account/orders/${encodeURIComponent(orderId)}`, await mintCustomerToken(customerId, shop));

  it("the order's own customer sees whether it and its shipments reached the workspace, in plain states", async () => {
    const res = await status("8101", "gid://shopify/Order/5001");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.body).toEqual({ status: "known", orderName: "#1001", order: "sent", shipments: ["sent", "failed"] });
    expect((await status("8101", "5003")).body).toEqual({
      status: "known",
      orderName: null,
      order: "waiting",
      shipments: [],
    });
  });

  it("another customer's order, another shop's token and an unknown order get the same answer (no IDOR)", async () => {
    const unknown = await status("8101", "gid://shopify/Order/5999");
    expect(unknown).toMatchObject({ status: 200, body: { status: "unknown" } });
    const others = [
      await status("8101", "5002"),
      await status("8102", "5001"),
      await status("8101", "5001", SHOP_B),
      await status("8101", "../5001"),
    ];
    for (const res of others) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(unknown.body);
    }
  });
});
