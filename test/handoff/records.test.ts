// The click path's SQL (settings read, prior-handoff lookup, the record insert) on both databases: what it writes
// is what the merchant's list reads back, reuse follows expiry, and prices become exact minor units.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveSettings } from "~/connections/settings-store.server";
import { listHandoffs, priorHandoffs, recordOutcome, recordRefusal, type RecordFacts } from "~/handoff/records.server";
import { toMinorUnits } from "~/handoff/resolver.server";
import { DEFAULT_EXPIRY_SECONDS, loadHandoffSettings, saveHandoffSettings } from "~/handoff/settings.server";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";
import { SERVICE_SETTINGS_FORM } from "../helpers/service-settings";

const backends = usingPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const SHOP = "records.myshopify.com";
const MINUTE = 60_000;

const facts = (cart: string, content: string): RecordFacts => ({
  shop: SHOP,
  customerId: null,
  cartTokenHash: cart,
  contentHash: content,
  externalCartId: `cart-${cart}`,
  idempotencyKey: `key-${cart}-${content}`,
  currency: "EUR",
  lines: [
    { variantId: "1", productId: "10", sku: null, title: "Mug", quantity: 3, unitPriceMinor: 1250 },
    {
      variantId: "2",
      productId: "20",
      sku: "TEA",
      title: "Tea – «Earl Grey» 'n' \"more\"",
      quantity: 1,
      unitPriceMinor: 499,
    },
  ],
});

describe.each(backends)("handoff records on %s", (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
  }, 60_000);
  afterAll(() => db?.close());

  it("writes what the merchant's list reads back: lines, exact total, state, expiry, reason, time of the click", async () => {
    const before = Date.now();
    const expiresAt = new Date(Date.now() + 30 * MINUTE);
    await recordOutcome(db.prisma, facts("a", "x"), {
      state: "created",
      handoffId: "h-1",
      claimUrl: "https://svc.example/claim/1",
      expiresAt,
      attempts: 2,
    });
    await recordRefusal(
      db.prisma,
      { shop: SHOP, customerId: "42", cartTokenHash: "b", lineCount: 201 },
      "too_many_lines",
      "The cart had more than 200 lines.",
    );

    const [refused, created] = await listHandoffs(db.prisma, SHOP);
    expect(created).toMatchObject({
      state: "created",
      lineCount: 2,
      totalMinor: 4249,
      currency: "EUR",
      attempts: 2,
      reason: null,
      expiresAt: expiresAt.toISOString(),
    });
    expect(refused).toMatchObject({
      state: "failed",
      lineCount: 201,
      totalMinor: 0,
      customerId: "42",
      reasonCode: "too_many_lines",
      reason: "The cart had more than 200 lines.",
    });
    // Written as UTC like Prisma's own rows, whatever the database session's time zone.
    for (const row of [created, refused]) {
      expect(Date.parse(row.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(row.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
    }
    const stored = await db.prisma.cartHandoff.findFirstOrThrow({ where: { shop: SHOP, cartTokenHash: "a" } });
    expect(stored.lines).toEqual(facts("a", "x").lines);
    expect(stored.updatedAt.getTime()).toBe(stored.createdAt.getTime());
  });

  it("reuses the newest created handoff only while it stays valid, and counts generations", async () => {
    const now = Date.now();
    expect(await priorHandoffs(db.prisma, SHOP, "c", "y", new Date(now))).toEqual({
      reusableClaimUrl: null,
      generation: 0,
    });

    await recordOutcome(db.prisma, facts("c", "y"), {
      state: "created",
      handoffId: "h-old",
      claimUrl: "https://svc.example/claim/old",
      expiresAt: new Date(now - MINUTE),
      attempts: 1,
    });
    await recordOutcome(db.prisma, facts("c", "y"), {
      state: "failed",
      reasonCode: "server_error",
      reason: "down",
      attempts: 3,
    });
    expect(await priorHandoffs(db.prisma, SHOP, "c", "y", new Date(now))).toEqual({
      reusableClaimUrl: null,
      generation: 1,
    });

    await new Promise((r) => setTimeout(r, 5)); // a later createdAt than the expired one
    await recordOutcome(db.prisma, facts("c", "y"), {
      state: "created",
      handoffId: "h-new",
      claimUrl: "https://svc.example/claim/new",
      expiresAt: new Date(now + 10 * MINUTE),
      attempts: 1,
    });
    expect(await priorHandoffs(db.prisma, SHOP, "c", "y", new Date(now + MINUTE))).toEqual({
      reusableClaimUrl: "https://svc.example/claim/new",
      generation: 2,
    });
    // Not valid long enough: a new one is made, never the old link.
    expect(await priorHandoffs(db.prisma, SHOP, "c", "y", new Date(now + 11 * MINUTE))).toEqual({
      reusableClaimUrl: null,
      generation: 2,
    });
    // Other content, other cart, other shop: nothing to reuse.
    expect((await priorHandoffs(db.prisma, SHOP, "c", "z", new Date(now))).generation).toBe(0);
    expect((await priorHandoffs(db.prisma, "other.myshopify.com", "c", "y", new Date(now))).generation).toBe(0);
  });

  it("reads the button switch, the expiry and the decrypted service settings in one go", async () => {
    const shop = "settings-read.myshopify.com";
    expect(await loadHandoffSettings(db.prisma, shop)).toEqual({
      enabled: true,
      expirySeconds: DEFAULT_EXPIRY_SECONDS,
      service: null,
    });

    expect((await saveHandoffSettings(db.prisma, shop, { handoffExpirySeconds: "600" })).ok).toBe(true); // unticked: off
    expect(await loadHandoffSettings(db.prisma, shop)).toEqual({ enabled: false, expirySeconds: 600, service: null });

    expect((await saveSettings(db.prisma, shop, SERVICE_SETTINGS_FORM)).ok).toBe(true);
    const settings = await loadHandoffSettings(db.prisma, shop);
    expect(settings).toMatchObject({ enabled: false, expirySeconds: 600 });
    expect(settings.service).toMatchObject({
      environment: "sandbox",
      clientId: "client-1",
      clientSecret: "client-secret-1",
      signingSecret: "signing-secret-1",
    });

    // A secret that cannot be decrypted (here: a value moved from another column) is no service settings: the click
    // is refused as "settings missing", the same as everywhere else, not an error.
    const row = await db.prisma.shopSettings.findUniqueOrThrow({ where: { shop } });
    await db.prisma.shopSettings.update({ where: { shop }, data: { clientSecretEnc: row.signingSecretEnc } });
    expect(await loadHandoffSettings(db.prisma, shop)).toEqual({ enabled: false, expirySeconds: 600, service: null });
  });
});

describe("prices in minor units", () => {
  it("uses each currency's own decimals, exactly, the same on every call", () => {
    expect(toMinorUnits("12.50", "EUR")).toBe(1250);
    expect(toMinorUnits("0.1", "USD")).toBe(10);
    expect(toMinorUnits("1500", "JPY")).toBe(1500);
    expect(toMinorUnits("1.234", "KWD")).toBe(1234);
    expect(toMinorUnits("-3.05", "EUR")).toBe(-305);
    expect(toMinorUnits("19.99", "EUR")).toBe(1999); // 19.99 * 100 in floating point is 1998.9999…
    expect(toMinorUnits("1500", "JPY")).toBe(1500);
  });
});
