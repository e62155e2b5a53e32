// Continue cart in a store that sells in several currencies (Shopify Markets): a EUR shop, a US market priced in
// USD. The app asks Shopify (the Storefront API's `cart`, answered by the dev stand-in with the market's price list
// and automatic discounts) for the cart's prices, server-side, through the real app proxy route, the app's build
// and the emulator; the browser's own price fields are ignored whatever they say.
import { randomUUID } from "node:crypto";
import { setupServer } from "msw/node";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCatalog } from "../../dev/admin-api/catalog";
import { adminApiHandlers } from "../../dev/admin-api/handlers";
import { storefrontApiHandlers, type StorefrontCarts } from "../../dev/storefront-api/handlers";
import { saveSettings } from "~/connections/settings-store.server";
import { marketPrices } from "~/handoff/market-prices.server";
import { emulatorState, resetEmulator } from "../helpers/emulator";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { withHarness } from "../helpers/harness";
import { proxyUrl, TEST_SHOP } from "../helpers/shopify";

const MUG = "41000000001";
const TEA_L = "41000000002";
const APRON = "41000000004";

const catalog = createCatalog(); // EUR: mug 12.50, large tea tin 8.00, apron 29.00
catalog.markets = [
  {
    countries: ["US"],
    currency: "USD",
    prices: { [MUG]: "13.99", [TEA_L]: "8.75", [APRON]: "31.00" },
    automaticDiscountPercent: { [TEA_L]: 20, [APRON]: 10 },
  },
];
const carts: StorefrontCarts = new Map();
const mock = setupServer(...adminApiHandlers(catalog, TEST_SHOP), ...storefrontApiHandlers(catalog, TEST_SHOP, carts));
beforeAll(() => mock.listen({ onUnhandledRequest: "bypass" })); // before the app: the library keeps the fetch it finds
const h = withHarness({ app: {}, emulator: "oauth" });

beforeAll(async () => {
  expect((await saveSettings(h.db.prisma, TEST_SHOP, emulatorSettings(h.emulator.url))).ok).toBe(true);
}, 60_000);
beforeEach(() => resetEmulator(h.emulator));

type Line = { variant_id: string; quantity: number } & Record<string, unknown>;

/** The block script's POST through the app proxy; the lines may carry anything a tampered page adds. */
async function continueCart(token: string | undefined, lines: Line[]) {
  const res = await fetch(proxyUrl(h.app.url, "/cart", { customerId: null }), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ token, locale: "en", lines }),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; claim_url?: string } };
}

async function handedOff() {
  const handoffs = (await emulatorState(h.emulator.url)).handoffs as {
    body: { lines: { title: string; quantity: number; unit_price_minor: number; currency: string }[] };
  }[];
  expect(handoffs).toHaveLength(1);
  return handoffs[0].body.lines.map((l) => [l.title, l.quantity, l.unit_price_minor, l.currency]);
}

describe("Continue cart prices in the shopper's market", () => {
  it("a US-market cart of a EUR shop hands off USD prices as Shopify priced them, automatic discounts included; tampered prices are ignored", async () => {
    const token = `c1-${randomUUID()}?key=${randomUUID()}`;
    carts.set(token, {
      country: "US",
      lines: [
        { variantId: MUG, quantity: 2 },
        { variantId: TEA_L, quantity: 1 },
      ],
    });
    const tampered = { price: "0.01", unit_price_minor: 1, currency: "EUR", final_price: 1 };
    const { status, body } = await continueCart(token, [
      { variant_id: MUG, quantity: 2, ...tampered },
      { variant_id: TEA_L, quantity: 1, ...tampered },
    ]);
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(await handedOff()).toEqual([
      ["Blue mug", 2, 1399, "USD"],
      ["Tea tin - Large", 1, 700, "USD"], // 8.75 less the market's automatic 20 %
    ]);
    // The claim page shows what was handed off.
    const claim = await (await fetch(body.claim_url!)).text();
    expect(claim).toContain("13.99 USD");
    expect(claim).toContain("7.00 USD");
  });

  it("a cart in the shop's own market keeps the shop's currency and prices", async () => {
    const token = `c1-${randomUUID()}`;
    carts.set(token, { country: "DE", lines: [{ variantId: MUG, quantity: 1 }] });
    expect((await continueCart(token, [{ variant_id: MUG, quantity: 1, price: "0.01" }])).body.ok).toBe(true);
    expect(await handedOff()).toEqual([["Blue mug", 1, 1250, "EUR"]]);
  });

  it("lines that are not the cart Shopify holds, or no cart token (the no-JavaScript form), get the shop's base prices, never the browser's", async () => {
    const token = `c1-${randomUUID()}`;
    carts.set(token, { country: "US", lines: [{ variantId: MUG, quantity: 1 }] });
    expect((await continueCart(token, [{ variant_id: MUG, quantity: 3, unit_price_minor: 1 }])).body.ok).toBe(true);
    expect(await handedOff()).toEqual([["Blue mug", 3, 1250, "EUR"]]);
    await resetEmulator(h.emulator);
    expect((await continueCart(undefined, [{ variant_id: TEA_L, quantity: 1, unit_price_minor: 1 }])).body.ok).toBe(
      true,
    );
    expect(await handedOff()).toEqual([["Tea tin - Large", 1, 800, "EUR"]]);
  });
});

describe("marketPrices (the Storefront API's answer read strictly)", () => {
  const answer =
    (nodes: unknown[], country = "US") =>
    async () => ({ data: { cart: { id: "x", buyerIdentity: { countryCode: country }, lines: { nodes } } } });
  const node = (variant: string, quantity: number, unit: string, total: string, currency = "USD") => ({
    quantity,
    merchandise: { id: `gid://shopify/ProductVariant/${variant}` },
    cost: {
      amountPerQuantity: { amount: unit, currencyCode: currency },
      totalAmount: { amount: total, currencyCode: currency },
    },
  });

  it("takes the discounted unit price when the line's discount comes to whole cents per item, else the market price", async () => {
    const priced = await marketPrices(answer([node(MUG, 3, "10.00", "25.00"), node(TEA_L, 2, "5.00", "9.00")]), "t", [
      { variantId: MUG, quantity: 3 },
      { variantId: TEA_L, quantity: 2 },
    ]);
    expect(priced).toMatchObject({ ok: true, currency: "USD", country: "US" });
    if (!priced.ok) return;
    expect(priced.unitPriceMinor.get(MUG)).toBe(1000); // 25.00 / 3 is not whole cents: the discount shows at checkout
    expect(priced.unitPriceMinor.get(TEA_L)).toBe(450);
  });

  it("sums a variant split over several lines, and refuses disagreement, mixed currencies and malformed amounts", async () => {
    const split = await marketPrices(answer([node(MUG, 1, "10.00", "10.00"), node(MUG, 2, "10.00", "20.00")]), "t", [
      { variantId: MUG, quantity: 3 },
    ]);
    expect(split.ok).toBe(true);
    expect(
      await marketPrices(answer([node(MUG, 1, "10.00", "10.00")]), "t", [{ variantId: TEA_L, quantity: 1 }]),
    ).toEqual({ ok: false, reason: "lines_differ" });
    expect(
      await marketPrices(answer([node(MUG, 1, "10.00", "10.00"), node(TEA_L, 1, "5.00", "5.00", "CAD")]), "t", [
        { variantId: MUG, quantity: 1 },
        { variantId: TEA_L, quantity: 1 },
      ]),
    ).toEqual({ ok: false, reason: "mixed_currencies" });
    expect(await marketPrices(answer([node(MUG, 1, "1e9", "1e9")]), "t", [{ variantId: MUG, quantity: 1 }])).toEqual({
      ok: false,
      reason: "unreachable",
    });
    expect(await marketPrices(async () => ({ data: { cart: null } }), "t", [{ variantId: MUG, quantity: 1 }])).toEqual({
      ok: false,
      reason: "no_cart",
    });
    expect(
      await marketPrices(async () => Promise.reject(new Error("down")), "t", [{ variantId: MUG, quantity: 1 }]),
    ).toEqual({ ok: false, reason: "unreachable" });
    expect(await marketPrices(answer([]), null, [{ variantId: MUG, quantity: 1 }])).toEqual({
      ok: false,
      reason: "no_token",
    });
  });
});
