// Continue cart end to end: the storefront's cart page with the real theme block (liquidjs) → the app proxy route
// (signed by the local app-proxy signer) → titles and prices from the Admin API (MSW over a small catalog) → a
// signed handoff at the emulator over real HTTP → the browser on the emulator's claim page. Then every refusal and
// failure the shopper can meet, each with its record for the merchant.
import { randomBytes, randomUUID } from "node:crypto";
import { setupServer } from "msw/node";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addFillerVariants, createCatalog } from "../../dev/admin-api/catalog";
import { adminApiHandlers } from "../../dev/admin-api/handlers";
import { storefrontApiHandlers } from "../../dev/storefront-api/handlers";
import type { CartState } from "../../dev/storefront/cart-page";
import type { RunningEmulator } from "../../emulator/server";
import { saveSettings } from "~/connections/settings-store.server";
import { parseKeyring } from "~/crypto/secret-box.server";
import { listHandoffs } from "~/handoff/records.server";
import { saveHandoffSettings } from "~/handoff/settings.server";
import { startApp, type RunningApp } from "../helpers/app";
import { CHROME_USER_AGENT, launchBrowser, newContext, screenshotPath } from "../helpers/browser";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { emulatorSettings, startEmulatorFor } from "../helpers/emulator-oauth";
import { proxyUrl, seedOfflineSession, TEST_SHOP } from "../helpers/shopify";
import { routeStorefront } from "../helpers/storefront";
import { emulatorState, injectFault, resetEmulator } from "../helpers/emulator";

const KEYS = `k1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);
const SHOP_NO_SETTINGS = "no-settings.myshopify.com";
const SHOP_BAD_SECRET = "bad-secret.myshopify.com";
const HANDOFFS = "/api/v1/cart-handoffs";
const MUG = "41000000001";
const TEA_L = "41000000002";
const TEA_S = "41000000003";
const APRON = "41000000004";

const catalog = createCatalog();
const FILLER = addFillerVariants(catalog, 201);
// The Storefront API knows none of these carts (cart: null): the handoffs carry the Admin API's base prices.
const mock = setupServer(
  ...[TEST_SHOP, SHOP_NO_SETTINGS, SHOP_BAD_SECRET].flatMap((shop) => [
    ...adminApiHandlers(catalog, shop),
    ...storefrontApiHandlers(catalog, shop, new Map()),
  ]),
);

let db: TestDatabase;
let app: RunningApp;
let emu: RunningEmulator;
let browser: Browser;

type Line = { variant_id: string; quantity: number } & Record<string, unknown>;

/** The block script's request, through the app proxy signer. */
async function continueCart(
  lines: Line[],
  options: { token?: string; shop?: string; locale?: string; url?: string } = {},
) {
  const res = await fetch(options.url ?? proxyUrl(app.url, "/cart", { shop: options.shop, customerId: null }), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ token: options.token ?? `tok-${randomUUID()}`, locale: options.locale ?? "en", lines }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text.startsWith("{") ? JSON.parse(text) : text) as {
      ok: boolean;
      claim_url?: string;
      code?: string;
      message?: string;
    },
  };
}

async function handoffRequests() {
  return (await emulatorState(emu.url)).requests.filter((r) => r.path === HANDOFFS);
}

async function storedHandoffs() {
  return (await emulatorState(emu.url)).handoffs as {
    body: { lines: { title: string; quantity: number; unit_price_minor?: number; currency?: string }[] };
  }[];
}

beforeAll(async () => {
  mock.listen({ onUnhandledRequest: "bypass" }); // the app and the emulator are reached for real
  db = await createTestDatabase();
  app = await startApp(db, { ENCRYPTION_KEYS: KEYS });
  emu = await startEmulatorFor(app.url);
  for (const shop of [TEST_SHOP, SHOP_NO_SETTINGS, SHOP_BAD_SECRET]) await seedOfflineSession(db.prisma, shop);
  const s = emulatorSettings(emu.url);
  expect((await saveSettings(db.prisma, TEST_SHOP, { ...s }, { keyring })).ok).toBe(true);
  expect(
    (await saveSettings(db.prisma, SHOP_BAD_SECRET, { ...s, signingSecret: "not-the-signing-secret" }, { keyring })).ok,
  ).toBe(true);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  mock.close();
  await browser?.close();
  await emu?.close();
  await app?.close();
  await db?.close();
});

beforeEach(() => resetEmulator(emu));

describe("the storefront button in a browser", () => {
  async function openCart(state: CartState, javaScriptEnabled: boolean) {
    const ctx = await browser.newContext({ javaScriptEnabled, userAgent: CHROME_USER_AGENT });
    await routeStorefront(ctx, { appUrl: app.url, customerId: null, cart: { state, catalog } });
    const page = await ctx.newPage();
    await page.goto(`https://${TEST_SHOP}/cart`);
    return { page, close: () => ctx.close() };
  }

  for (const javaScriptEnabled of [true, false]) {
    it(`Continue cart lands on the claim page with the catalog's titles, quantities and prices (JavaScript ${javaScriptEnabled ? "on" : "off"})`, async () => {
      const state: CartState = {
        token: `tok-${randomUUID()}`,
        items: [
          { variant_id: MUG, quantity: 2 },
          { variant_id: TEA_L, quantity: 1 },
        ],
      };
      const { page, close } = await openCart(state, javaScriptEnabled);
      try {
        await page.getByRole("button", { name: "Continue cart" }).click();
        await page.waitForURL(`${emu.url}/claim/**`);
        const rows = await page
          .locator("table tbody tr")
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim())));
        expect(rows).toEqual([
          ["Blue mug", "2", "12.50 EUR"],
          ["Tea tin - Large", "1", "8.00 EUR"],
        ]);
        await page.screenshot({ path: screenshotPath(`continue-cart-js-${javaScriptEnabled ? "on" : "off"}`) });
      } finally {
        await close();
      }
      expect(await storedHandoffs()).toHaveLength(1);
    }, 60_000);
  }

  it("a failure shows the shopper's message in their language and leaves the cart page as it was", async () => {
    const state: CartState = { token: `tok-${randomUUID()}`, items: [{ variant_id: "41999999999", quantity: 1 }] };
    const context = await newContext(browser);
    await routeStorefront(context, { appUrl: app.url, customerId: null, cart: { state, catalog, locale: "fr" } });
    const page = await context.newPage();
    try {
      await page.goto(`https://${TEST_SHOP}/cart`);
      await page.getByRole("button", { name: "Continuer le panier" }).click();
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toContain("Ces articles ne sont plus disponibles : item 41999999999");
      expect(page.url()).toBe(`https://${TEST_SHOP}/cart`);
      expect(await page.getByRole("button", { name: "Continuer le panier" }).isEnabled()).toBe(true);
    } finally {
      await context.close();
    }
    expect(await handoffRequests()).toHaveLength(0);
  }, 60_000);
});

describe("the app proxy route", () => {
  it("takes titles and prices from the Admin API, not from the request", async () => {
    const out = await continueCart([
      { variant_id: MUG, quantity: 3, price: "0.01", unit_price_minor: 1, title: "Free mug", currency: "XXX" },
    ]);
    expect(out).toMatchObject({ status: 200, body: { ok: true } });
    const [handoff] = await storedHandoffs();
    expect(handoff.body.lines).toEqual([
      expect.objectContaining({
        title: "Blue mug",
        quantity: 3,
        unit_price_minor: 1250,
        currency: "EUR",
        merchant_sku: "MUG-BLUE",
        external_product_id: "8000000001",
      }),
    ]);
  });

  it("refuses a bad or missing proxy signature, sending and recording nothing", async () => {
    const before = await db.prisma.cartHandoff.count();
    const bad = await continueCart([{ variant_id: MUG, quantity: 1 }], {
      url: proxyUrl(app.url, "/cart", { secret: "not-the-api-secret" }),
    });
    const unsigned = new URL(proxyUrl(app.url, "/cart"));
    unsigned.searchParams.delete("signature");
    const missing = await continueCart([{ variant_id: MUG, quantity: 1 }], { url: unsigned.toString() });
    expect([bad.status, missing.status]).toEqual([400, 400]);
    expect(await handoffRequests()).toHaveLength(0);
    expect(await db.prisma.cartHandoff.count()).toBe(before);
  });

  it("refuses an empty cart and one over 200 lines with a clear message and a record; 200 lines go through", async () => {
    const empty = await continueCart([]);
    expect(empty).toMatchObject({
      status: 400,
      body: { ok: false, code: "empty_cart", message: expect.stringContaining("Your cart is empty") },
    });
    const lines = FILLER.map((id) => ({ variant_id: id, quantity: 1 }));
    const over = await continueCart(lines);
    expect(over).toMatchObject({
      status: 413,
      body: { ok: false, code: "too_many_lines", message: expect.stringContaining("at most 200") },
    });
    expect(await handoffRequests()).toHaveLength(0);
    const full = await continueCart(lines.slice(0, 200));
    expect(full).toMatchObject({ status: 200, body: { ok: true } });
    expect((await storedHandoffs())[0].body.lines).toHaveLength(200);

    const reasons = (await listHandoffs(db.prisma, TEST_SHOP, { take: 200 })).map((h) => h.reasonCode);
    expect(reasons).toEqual(expect.arrayContaining(["empty_cart", "too_many_lines"]));
  });

  it("names a deleted variant and one no longer for sale, and sends nothing", async () => {
    catalog.variants.get(APRON)!.availableForSale = false;
    try {
      const out = await continueCart([
        { variant_id: MUG, quantity: 1 },
        { variant_id: "41999999999", quantity: 1 },
        { variant_id: APRON, quantity: 1 },
      ]);
      expect(out).toMatchObject({ status: 409, body: { code: "unavailable" } });
      expect(out.body.message).toContain("item 41999999999, Linen apron");
    } finally {
      catalog.variants.get(APRON)!.availableForSale = true;
    }
    expect(await handoffRequests()).toHaveLength(0);
    const [latest] = await listHandoffs(db.prisma, TEST_SHOP, { take: 1 });
    expect(latest).toMatchObject({
      state: "failed",
      reasonCode: "unavailable",
      reason: "No longer available: item 41999999999, Linen apron.",
    });
  });

  it("refuses a draft, archived or unpublished variant without naming it, and sends nothing", async () => {
    const mug = catalog.variants.get(MUG)!;
    for (const change of [
      { productStatus: "DRAFT" as const },
      { productStatus: "ARCHIVED" as const },
      { published: false },
    ]) {
      const before = { ...mug, published: true };
      Object.assign(mug, change);
      try {
        const out = await continueCart([
          { variant_id: MUG, quantity: 1 },
          { variant_id: APRON, quantity: 1 },
        ]);
        expect(out, JSON.stringify(change)).toMatchObject({ status: 409, body: { code: "unavailable" } });
        expect(out.body.message).toContain(`item ${MUG}`);
        expect(out.body.message).not.toContain(mug.productTitle);
        const [latest] = await listHandoffs(db.prisma, TEST_SHOP, { take: 1 });
        expect(latest.reason).not.toContain(mug.productTitle);
      } finally {
        Object.assign(mug, before);
      }
    }
    expect(await handoffRequests()).toHaveLength(0);
  });

  it("service 5xx then success: one handoff at the service", async () => {
    await injectFault(emu.url, { path: HANDOFFS, status: 500, body: { error: "internal_error" }, times: 1 });
    const out = await continueCart([{ variant_id: TEA_S, quantity: 4 }]);
    expect(out).toMatchObject({ status: 200, body: { ok: true } });
    expect((await handoffRequests()).map((r) => r.status)).toEqual([500, 201]);
    expect(await storedHandoffs()).toHaveLength(1);
  }, 30_000);

  it("service down: a clear message and a record; the shopper's retry reuses the Idempotency-Key and makes one handoff", async () => {
    await injectFault(emu.url, { path: HANDOFFS, status: 503, body: { error: "unavailable" }, times: 3 });
    const token = `tok-${randomUUID()}`;
    const down = await continueCart([{ variant_id: MUG, quantity: 1 }], { token, locale: "de" });
    expect(down).toMatchObject({
      status: 502,
      body: {
        ok: false,
        code: "service_unavailable",
        message: expect.stringContaining("Der Dienst antwortet gerade nicht"),
      },
    });
    const [failed] = await listHandoffs(db.prisma, TEST_SHOP, { take: 1 });
    expect(failed).toMatchObject({ state: "failed", reasonCode: "server_error", attempts: 3 });

    const retry = await continueCart([{ variant_id: MUG, quantity: 1 }], { token });
    expect(retry).toMatchObject({ status: 200, body: { ok: true } });
    const keys = new Set((await handoffRequests()).map((r) => r.idempotency_key));
    expect(keys.size).toBe(1);
    expect(await storedHandoffs()).toHaveLength(1);
  }, 30_000);

  it("two clicks on the same cart: one handoff, the same claim URL; a changed cart: a new handoff", async () => {
    const token = `tok-${randomUUID()}`;
    const first = await continueCart([{ variant_id: MUG, quantity: 1 }], { token });
    const second = await continueCart([{ variant_id: MUG, quantity: 1 }], { token });
    expect(first.body.ok && second.body.ok).toBe(true);
    expect(second.body.claim_url).toBe(first.body.claim_url);
    expect(await handoffRequests()).toHaveLength(1);

    const changed = await continueCart([{ variant_id: MUG, quantity: 2 }], { token });
    expect(changed.body.ok).toBe(true);
    expect(changed.body.claim_url).not.toBe(first.body.claim_url);
    expect(await storedHandoffs()).toHaveLength(2);
  });

  it("never hands out a handoff that is about to expire", async () => {
    expect(
      (await saveHandoffSettings(db.prisma, TEST_SHOP, { cartButtonEnabled: "on", handoffExpirySeconds: "60" })).ok,
    ).toBe(true);
    try {
      const token = `tok-${randomUUID()}`;
      const first = await continueCart([{ variant_id: TEA_L, quantity: 1 }], { token });
      const second = await continueCart([{ variant_id: TEA_L, quantity: 1 }], { token });
      expect(second.body.claim_url).not.toBe(first.body.claim_url);
      expect(await storedHandoffs()).toHaveLength(2);
    } finally {
      await saveHandoffSettings(db.prisma, TEST_SHOP, { cartButtonEnabled: "on", handoffExpirySeconds: "1800" });
    }
  });

  it("settings missing or the button turned off: a clear message and nothing sent", async () => {
    const missing = await continueCart([{ variant_id: MUG, quantity: 1 }], { shop: SHOP_NO_SETTINGS });
    expect(missing).toMatchObject({
      status: 503,
      body: { code: "settings_missing", message: expect.stringContaining("not available in this store yet") },
    });
    const [row] = await listHandoffs(db.prisma, SHOP_NO_SETTINGS, { take: 1 });
    expect(row).toMatchObject({
      state: "failed",
      reasonCode: "settings_missing",
      reason: "The service settings are missing: nothing was sent.",
    });

    await saveHandoffSettings(db.prisma, TEST_SHOP, { handoffExpirySeconds: "1800" }); // unticked box: off
    try {
      const off = await continueCart([{ variant_id: MUG, quantity: 1 }]);
      expect(off).toMatchObject({ status: 503, body: { code: "disabled" } });
    } finally {
      await saveHandoffSettings(db.prisma, TEST_SHOP, { cartButtonEnabled: "on", handoffExpirySeconds: "1800" });
    }
    expect(await handoffRequests()).toHaveLength(0);
  });

  it("a shopper hammering the button is stopped by the per-cart budget", async () => {
    const token = `tok-${randomUUID()}`;
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++)
      statuses.push((await continueCart([{ variant_id: MUG, quantity: i }], { token })).status);
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(200));
    expect(statuses.slice(8)).toEqual([429, 429, 429, 429]);
    expect(await storedHandoffs()).toHaveLength(8);
  });

  it("the no-JavaScript form: 303 to the claim URL, or a page with the message and a link back to the cart", async () => {
    const post = (lines: string[]) =>
      fetch(proxyUrl(app.url, "/cart"), {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams([["locale", "en"], ...lines.map((l) => ["line", l])]),
      });
    const ok = await post([`${MUG}:1`]);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toMatch(new RegExp(`^${emu.url}/claim/`));
    const empty = await post([]);
    expect(empty.status).toBe(200);
    const page = await empty.text();
    expect(page).toContain("Your cart is empty");
    expect(page).toMatch(/<a href="\/cart\/?">Back to your cart<\/a>/); // the proxy helper may add a slash
  });

  // Last in the file: after the service's 429 the app holds this client's handoffs to the service's pace (the
  // scheduler the imports share), which the bursts of the tests above would run into.
  it("rate limiting and a rejected signature each get a message for the shopper and a reason for the merchant", async () => {
    const rejected = await continueCart([{ variant_id: MUG, quantity: 1 }], { shop: SHOP_BAD_SECRET });
    expect(rejected).toMatchObject({
      status: 502,
      body: { code: "signature_rejected", message: expect.stringContaining("could not be verified") },
    });
    const [row] = await listHandoffs(db.prisma, SHOP_BAD_SECRET, { take: 1 });
    expect(row).toMatchObject({ state: "failed", reasonCode: "invalid_signature" });
    expect(row.reason).toMatch(/signature/i);

    await injectFault(emu.url, {
      path: HANDOFFS,
      status: 429,
      headers: { "retry-after": "30" },
      body: { error: "rate_limited" },
      times: 1,
    });
    const limited = await continueCart([{ variant_id: MUG, quantity: 1 }]);
    expect(limited).toMatchObject({
      status: 503,
      body: { code: "rate_limited", message: expect.stringContaining("busy") },
    });
    // Until the service's Retry-After has passed, a handoff is refused without being sent.
    const sent = (await handoffRequests()).length;
    const held = await continueCart([{ variant_id: TEA_L, quantity: 1 }]);
    expect(held).toMatchObject({ status: 429, body: { code: "rate_limited" } });
    expect(await handoffRequests()).toHaveLength(sent);
  }, 30_000);
});
