// The customer account extensions (extensions/workspace-account), bundled as the Shopify CLI bundles them and
// rendered in a DOM with exactly the API Shopify's types give each target (test/helpers/ui-extension.ts), against
// the real backend routes over HTTP with session tokens signed like Shopify's: every state of the profile block
// (loading, not configured, not connected, connected, needs renewing, disconnect, unreachable, how the latest attempt
// ended), of the Connect workspace page (connect through the emulator's consent and the store's completion step, back
// on the profile; an attempt approved in another account; a declined consent; the outcome reached while the page is
// open) and of the order status block (sent, waiting, failed, not
// sent, shipments, another customer's order, unreachable, the pre-authenticated page), in English, French, German.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import type { BundledExtension } from "../../dev/ui-extensions/bundle";
import { signalOf } from "../../dev/ui-extensions/shopify-global";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { dataPath } from "../helpers/route-data";
import { mintCustomerToken, mintSessionToken, proxyUrl, TEST_SHOP } from "../helpers/shopify";
import { bundleExtensionsFor, bundleOf, renderExtension, waitFor, type Rendered } from "../helpers/ui-extension";

// The test shop's Admin API endpoint, as MSW matches it.
const shopAdminApi = graphql.link(`https://${TEST_SHOP}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`);

const SHOP_B = "shop-b.myshopify.com";
const ACCOUNT_URL = "https://shopify.com/48291/account";
const PROFILE = "customer-account.profile.block.render";
const ORDER = "customer-account.order-status.block.render";
const PAGE = "customer-account.page.render";
const PROFILE_PAGE = `${ACCOUNT_URL}/profile`;

const shopify = setupServer(
  shopAdminApi.query("CustomerAccounts", () =>
    HttpResponse.json({
      data: { shop: { customerAccountsV2: { customerAccountsVersion: "NEW_CUSTOMER_ACCOUNTS", url: ACCOUNT_URL } } },
    }),
  ),
);
beforeAll(() => shopify.listen({ onUnhandledRequest: "bypass" }));
afterAll(() => shopify.close());

const h = withHarness({ shops: [TEST_SHOP, SHOP_B], app: {}, emulator: "oauth" });
let bundles: BundledExtension[];
let unreachable: BundledExtension[];

beforeAll(async () => {
  bundles = await bundleExtensionsFor(h.app.url);
  unreachable = await bundleExtensionsFor("http://127.0.0.1:9"); // nothing listens on the discard port
  const s = emulatorSettings(h.emulator.url);
  const res = await fetch(new URL(dataPath("/app/settings", "routes/app.settings"), h.app.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${await mintSessionToken(TEST_SHOP)}`, "User-Agent": CHROME_USER_AGENT },
    body: new URLSearchParams({ intent: "save", ...s, environment: s.environment }),
  });
  expect(res.status).toBe(200);
});

const tokens =
  (customerId: string, shop = TEST_SHOP) =>
  () =>
    mintCustomerToken(customerId, shop);

// Every extension rendered in a test used only the API Shopify gives its target.
const rendered: Rendered[] = [];
afterEach(async () => {
  for (const r of rendered.splice(0)) {
    expect(r.violations).toEqual([]);
    await r.close(); // its timers (the Connect page's outcome check) stop with it
  }
});
const track = async (r: Promise<Rendered>) => {
  rendered.push(await r);
  return rendered.at(-1)!;
};

function profileBlock(customerId: string, options: { shop?: string; locale?: string; from?: BundledExtension[] } = {}) {
  return track(
    renderExtension(bundleOf(options.from ?? bundles, "workspace-account", PROFILE), {
      sessionToken: tokens(customerId, options.shop),
      locale: options.locale,
    }),
  );
}

/** The Connect workspace page (full-page extension), given navigation.currentEntry.url `url` (Shopify's extension:/). */
function connectPage(customerId: string, options: { url?: string; locale?: string; shop?: string } = {}) {
  return track(
    renderExtension(bundleOf(bundles, "workspace-connect", PAGE), {
      sessionToken: tokens(customerId, options.shop),
      url: options.url,
      locale: options.locale,
    }),
  );
}

const stateOf = (r: Rendered) => r.query("[data-workspace-state]")?.getAttribute("data-workspace-state");
const settled = (r: Rendered, state: string) =>
  waitFor(() => stateOf(r) === state, `profile state ${state} (now ${stateOf(r)}: ${r.text()})`);
const click = (r: Rendered, action: string) => (r.query(`[data-action=${action}]`) as HTMLElement).click();

/** The emulator's consent for an authorization URL the page linked to; returns the callback's redirect. */
async function consentAndCallback(authorizationUrl: string, decision: "approve" | "deny" = "approve") {
  const authorize = new URL(authorizationUrl);
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
  return callback.headers.get("location")!;
}

/** The store's completion step as Shopify's app proxy forwards it for the signed-in `customerId`; its redirect. */
async function completeOnStore(location: string, customerId: string) {
  const back = new URL(location);
  expect(`${back.origin}${back.pathname}`).toBe(`https://${TEST_SHOP}/apps/workspace/connect/complete`);
  const res = await fetch(
    proxyUrl(h.app.url, "/connect/complete", { customerId, extra: Object.fromEntries(back.searchParams) }),
    { redirect: "manual", headers: { "User-Agent": CHROME_USER_AGENT } },
  );
  return res.headers.get("location")!;
}

/** The Connect page's consent link, followed: consent at the emulator, the callback's redirect. */
async function consentFrom(page: Rendered, decision: "approve" | "deny" = "approve") {
  await settled(page, "ready");
  click(page, "consent");
  const authorizationUrl = await waitFor(() => page.navigated[0], "the link to the consent page");
  expect(new URL(authorizationUrl).origin).toBe(h.emulator.url);
  return consentAndCallback(authorizationUrl, decision);
}

/** Connect from the profile block: its link to the Connect workspace page, consent, the store's step, the profile. */
async function connectThroughPage(customerId: string) {
  const block = await profileBlock(customerId);
  await settled(block, "not_connected");
  click(block, "connect");
  expect(block.navigated).toEqual(["extension:workspace-connect/"]);
  const back = await completeOnStore(await consentFrom(await connectPage(customerId)), customerId);
  expect(back).toBe(PROFILE_PAGE);
  return profileBlock(customerId);
}

describe("profile block", () => {
  it("loading, then not connected with Connect, a link to the Connect workspace page", async () => {
    const r = await profileBlock("9001");
    expect(stateOf(r)).toBe("loading");
    expect(r.text()).toContain("Checking your workspace connection");
    await settled(r, "not_connected");
    expect(r.text()).toContain("Not connected.");
    const connect = r.query("[data-action=connect]");
    expect(connect?.textContent).toBe("Connect workspace");
    expect(connect?.getAttribute("href")).toBe("extension:workspace-connect/");
  });

  it("not configured by the merchant: says so, offers nothing to click", async () => {
    const r = await profileBlock("9001", { shop: SHOP_B });
    await settled(r, "not_configured");
    expect(r.text()).toContain("Workspace connections are not available at this store yet.");
    expect(r.query("s-button")).toBeNull();
  });

  it("a connection that needs renewing offers Reconnect", async () => {
    const r = await connectThroughPage("9006");
    await settled(r, "connected");
    await h.db.prisma.customerGrant.updateMany({
      where: { customerId: "9006" },
      data: { status: "needs_reconnect", statusReason: "the token was revoked" },
    });
    const again = await profileBlock("9006");
    await settled(again, "needs_reconnect");
    expect(again.text()).toContain("Your workspace ws-acme needs to be connected again");
    expect(again.query("[data-action=connect]")?.textContent).toBe("Reconnect workspace");
    expect(again.query("[data-action=connect]")?.getAttribute("href")).toBe("extension:workspace-connect/");
    expect(again.text()).not.toContain("revoked"); // the merchant's reason is not the shopper's business
    const page = await connectPage("9006");
    await settled(page, "ready");
    expect(page.text()).toContain("Your workspace needs to be connected again.");
  });

  it("the app cannot be reached: says so and offers to try again", async () => {
    const r = await profileBlock("9001", { from: unreachable });
    await settled(r, "unavailable");
    expect(r.text()).toContain("Your workspace connection can't be checked right now.");
    expect(r.query("[data-action=retry]")).not.toBeNull();
  });

  it("an expired session token: unavailable, not someone else's state", async () => {
    const r = await track(
      renderExtension(bundleOf(bundles, "workspace-account", PROFILE), {
        sessionToken: () => mintCustomerToken("9001", TEST_SHOP, { lifetimeSeconds: -60, issuedAgoSeconds: 600 }),
      }),
    );
    await settled(r, "unavailable");
  });

  it("in French", async () => {
    const r = await profileBlock("9001", { locale: "fr" });
    await settled(r, "not_connected");
    expect(r.text()).toContain("Non connecté.");
    expect(r.query("[data-action=connect]")?.textContent).toBe("Connecter l'espace de travail");
  });
});

describe("Connect workspace page", () => {
  it("Connect → consent → the store's step → back on the profile: connected, as the backend says; then Disconnect", async () => {
    const r = await connectThroughPage("9002");
    await settled(r, "connected");
    expect(r.query("[data-notice]")?.textContent).toBe("Your workspace is connected.");
    expect(r.text()).toContain("Connected to ws-acme since");
    expect(await h.db.prisma.customerGrant.count({ where: { shop: TEST_SHOP, customerId: "9002" } })).toBe(1);

    // The Connect page, opened again, shows the connection (whatever address Shopify gives it).
    for (const url of ["extension:/", "extension:/connect", "extension://", `${ACCOUNT_URL}/pages/x?y=1`]) {
      const page = await connectPage("9002", { url });
      await settled(page, "connected");
      expect(page.text()).toMatch(
        /Connected to ws-acme since \w+ \d{1,2}, \d{4}\. Your orders and shipments from this store are sent there\./,
      );
      expect(page.query("[data-action=back]")?.getAttribute("href")).toBe("shopify:customer-account/profile");
    }

    click(r, "disconnect");
    await settled(r, "not_connected");
    expect(r.query("[data-notice]")?.textContent).toBe(
      "Your workspace is disconnected. This store no longer sends anything to it.",
    );
    expect(await h.db.prisma.customerGrant.count({ where: { shop: TEST_SHOP, customerId: "9002" } })).toBe(0);
    // The attempt that connected is not told as "connected" any more.
    const later = await profileBlock("9002");
    await settled(later, "not_connected");
    expect(later.query("[data-notice]")).toBeNull();
  });

  it("approved while signed in to another account: nothing connected, the starter told why on their pages", async () => {
    const back = await consentFrom(await connectPage("9003"));
    expect(await completeOnStore(back, "9004")).toBe(
      `https://${TEST_SHOP}/apps/workspace/connect?result=wrong_customer`,
    );
    expect(await h.db.prisma.customerGrant.count({ where: { customerId: { in: ["9003", "9004"] } } })).toBe(0);
    const starter = await connectPage("9003");
    await settled(starter, "ready");
    expect(starter.query("[data-notice]")?.textContent).toContain("approved while signed in to a different account");
    const other = await profileBlock("9004");
    await settled(other, "not_connected");
    expect(other.query("[data-notice]")).toBeNull(); // not their attempt
    // …and the starter cannot use it afterwards either: single use.
    await completeOnStore(back, "9003");
    expect(await h.db.prisma.customerGrant.count({ where: { customerId: "9003" } })).toBe(0);
  });

  it("declined at the service: the result in plain words, and a fresh link to try again", async () => {
    const back = await consentFrom(await connectPage("9005"), "deny");
    expect(back).toBe(PROFILE_PAGE);
    const r = await connectPage("9005");
    await settled(r, "ready");
    expect(r.query("[data-notice]")?.textContent).toBe("You declined the connection, so nothing was connected.");
    expect(r.query("[data-action=consent]")?.getAttribute("href")).toMatch(
      new RegExp(`^${h.emulator.url}/oauth/authorize\\?`),
    );
  });

  it("left open while the consent goes on in another tab: it asks the backend and shows the connection", async () => {
    const page = await connectPage("9007");
    const back = await consentFrom(page);
    expect(await completeOnStore(back, "9007")).toBe(PROFILE_PAGE);
    await waitFor(() => stateOf(page) === "connected", "the page to notice the connection", 15_000);
    expect(page.query("[data-notice]")?.textContent).toBe("Your workspace is connected.");
  });

  it("in German", async () => {
    const r = await connectPage("9008", { locale: "de" });
    await settled(r, "ready");
    expect(r.query("[data-action=consent]")?.textContent).toBe("Weiter zum Arbeitsbereich-Dienst");
  });
});

describe("order status block", () => {
  beforeAll(async () => {
    const rows = [
      { kind: "order", externalId: "7001", orderId: "7001", customerId: "9101", state: "imported" },
      { kind: "shipment", externalId: "7101", orderId: "7001", customerId: "9101", state: "imported" },
      { kind: "shipment", externalId: "7102", orderId: "7001", customerId: "9101", state: "pending" },
      { kind: "order", externalId: "7002", orderId: "7002", customerId: "9101", state: "waiting" },
      {
        kind: "order",
        externalId: "7003",
        orderId: "7003",
        customerId: "9101",
        state: "failed",
        reason: "rejected: invalid_payload (HTTP 422)",
      },
      { kind: "order", externalId: "7004", orderId: "7004", customerId: "9101", state: "skipped" },
      { kind: "order", externalId: "7005", orderId: "7005", customerId: "9102", state: "imported" },
    ];
    for (const row of rows) await h.db.prisma.syncRecord.create({ data: { shop: TEST_SHOP, ...row } });
  });

  const orderBlock = (
    customerId: string,
    orderId: string,
    options: {
      from?: BundledExtension[];
      locale?: string;
      authenticationState?: "fully_authenticated" | "pre_authenticated";
    } = {},
  ) =>
    track(
      renderExtension(bundleOf(options.from ?? bundles, "workspace-account", ORDER), {
        sessionToken: tokens(customerId),
        locale: options.locale,
        authenticationState: options.authenticationState,
        extra: { order: signalOf({ id: `gid://shopify/Order/${orderId}`, name: `#${orderId}` }) },
      }),
    );
  const orderState = (r: Rendered) => r.query("[data-workspace-order]")?.getAttribute("data-workspace-order");
  const orderSettled = (r: Rendered, state: string) =>
    waitFor(() => orderState(r) === state, `order state ${state} (now ${orderState(r)})`);

  it("sent, with each shipment's state", async () => {
    const r = await orderBlock("9101", "7001");
    expect(orderState(r)).toBe("loading");
    await orderSettled(r, "sent");
    expect(r.text()).toContain("This order was sent to your workspace.");
    expect([...r.body.querySelectorAll("[data-shipment]")].map((e) => e.textContent)).toEqual([
      "Shipment 1: sent to your workspace.",
      "Shipment 2: waiting to be sent to your workspace.",
    ]);
  });

  it("waiting, failed and not sent, in plain words without internal codes", async () => {
    const waiting = await orderBlock("9101", "7002");
    await orderSettled(waiting, "waiting");
    expect(waiting.text()).toContain("This order is waiting to be sent to your workspace.");
    const failed = await orderBlock("9101", "7003");
    await orderSettled(failed, "failed");
    expect(failed.text()).toContain("This order could not be sent to your workspace.");
    expect(failed.text()).not.toMatch(/invalid_payload|422|rejected/);
    const skipped = await orderBlock("9101", "7004");
    await orderSettled(skipped, "not_sent");
    expect(skipped.text()).toContain("This order was not sent to your workspace.");
  });

  it("another customer's order shows nothing, like an order the app never saw", async () => {
    for (const [customer, order] of [
      ["9101", "7005"],
      ["9102", "7001"],
      ["9101", "7999"],
    ]) {
      const r = await orderBlock(customer, order);
      await waitFor(() => !r.query("[data-workspace-order]"), `the block to hide for ${customer}/${order}`);
      expect(r.text()).toBe("");
    }
  });

  it("the app cannot be reached: says so", async () => {
    const r = await orderBlock("9101", "7001", { from: unreachable });
    await orderSettled(r, "unavailable");
    expect(r.text()).toContain("can't be checked right now");
  });

  it("pre-authenticated (opened from an order email): asks to sign in through Shopify, calls nothing, shows no error", async () => {
    let calls = 0;
    const r = await track(
      renderExtension(bundleOf(bundles, "workspace-account", ORDER), {
        sessionToken: async () => {
          calls += 1;
          return mintCustomerToken("9101");
        },
        authenticationState: "pre_authenticated",
        extra: { order: signalOf({ id: "gid://shopify/Order/7001", name: "#7001" }) },
      }),
    );
    await orderSettled(r, "sign_in");
    expect(r.text()).toContain("Sign in to see whether this order reached your workspace.");
    expect(r.query("[tone=critical]")).toBeNull();
    click(r, "sign-in");
    expect(r.loginRequests).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls).toBe(0);
    expect(orderState(r)).toBe("sign_in");
  });

  it("in German", async () => {
    const r = await orderBlock("9101", "7001", { locale: "de" });
    await orderSettled(r, "sent");
    expect(r.text()).toContain("Diese Bestellung wurde an Ihren Arbeitsbereich geschickt.");
  });
});
