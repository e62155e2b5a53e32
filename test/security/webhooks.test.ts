// Webhooks are checked beyond the HMAC (which covers only the body): the topic header must be the route's, a body
// naming a shop must name the header's shop, and a captured body replayed under fresh ids repeats no erasure.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../helpers/app";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { seedOfflineSession, sendWebhook, TEST_SHOP } from "../helpers/shopify";

const OTHER_SHOP = "other-shop.myshopify.com";
const CUSTOMER = "7300000001";

let db: TestDatabase;
let app: RunningApp;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db);
}, 240_000);
afterAll(async () => {
  await app?.close();
  await db?.close();
});

async function seedShop(shop: string) {
  await db.prisma.shopSettings.upsert({ where: { shop }, update: {}, create: { shop, clientId: "c" } });
  await connect(shop, CUSTOMER);
}

async function connect(shop: string, customerId: string) {
  await db.prisma.customerGrant.upsert({
    where: { shop_customerId: { shop, customerId } },
    update: {},
    create: { shop, customerId, workspaceId: "ws", scopes: "orders:write", accessTokenEnc: "enc:v1:x" },
  });
}

const held = async (shop: string) => ({
  settings: await db.prisma.shopSettings.count({ where: { shop } }),
  grants: await db.prisma.customerGrant.count({ where: { shop } }),
});

beforeEach(async () => {
  await db.prisma.session.deleteMany();
  await db.prisma.webhookReceipt.deleteMany();
  await seedShop(TEST_SHOP);
  await seedShop(OTHER_SHOP);
});

describe("a compliance webhook naming another shop than its header", () => {
  it("shop/redact: a signed body for another shop erases nothing, in either shop", async () => {
    const response = await sendWebhook(
      app.url,
      "shop/redact",
      { shop_id: 2, shop_domain: OTHER_SHOP },
      { shop: TEST_SHOP },
    );
    expect(response.status).toBe(400);
    expect(await held(TEST_SHOP)).toEqual({ settings: 1, grants: 1 });
    expect(await held(OTHER_SHOP)).toEqual({ settings: 1, grants: 1 });
  });

  it("customers/redact: a signed body for another shop erases nothing", async () => {
    const body = { shop_id: 2, shop_domain: OTHER_SHOP, customer: { id: Number(CUSTOMER) }, orders_to_redact: [] };
    expect((await sendWebhook(app.url, "customers/redact", body, { shop: TEST_SHOP })).status).toBe(400);
    expect(await held(TEST_SHOP)).toEqual({ settings: 1, grants: 1 });
  });

  it("while the matching body is acted on (the control)", async () => {
    const body = { shop_id: 1, shop_domain: TEST_SHOP, customer: { id: Number(CUSTOMER) }, orders_to_redact: [] };
    expect((await sendWebhook(app.url, "customers/redact", body, { shop: TEST_SHOP })).status).toBe(200);
    expect(await held(TEST_SHOP)).toEqual({ settings: 1, grants: 0 });
  });
});

describe("a topic header that is not the route's", () => {
  it("changes nothing", async () => {
    const body = { shop_id: 1, shop_domain: TEST_SHOP };
    // A signed customers/redact body posted to the shop/redact route, and the other way round.
    const toShopRoute = await sendWebhook(app.url, "customers/redact", body, { path: "/webhooks/shop/redact" });
    const toCustomerRoute = await sendWebhook(
      app.url,
      "shop/redact",
      { ...body, customer: { id: Number(CUSTOMER) } },
      { path: "/webhooks/customers/redact" },
    );
    expect([toShopRoute.status, toCustomerRoute.status]).toEqual([400, 400]);
    expect(await held(TEST_SHOP)).toEqual({ settings: 1, grants: 1 });
  });
});

describe("a replayed delivery", () => {
  it("customers/redact: the same signed body under new ids does not erase the customer's new connection", async () => {
    const body = { shop_id: 1, shop_domain: TEST_SHOP, customer: { id: Number(CUSTOMER) }, orders_to_redact: [] };
    expect((await sendWebhook(app.url, "customers/redact", body)).status).toBe(200);
    expect((await held(TEST_SHOP)).grants).toBe(0);

    await connect(TEST_SHOP, CUSTOMER); // the customer connects again afterwards
    const replay = await sendWebhook(app.url, "customers/redact", body, {
      eventId: randomUUID(),
      webhookId: randomUUID(),
    });
    expect(replay.status).toBe(200);
    expect((await held(TEST_SHOP)).grants).toBe(1);
  });

  it("shop/redact: erases an uninstalled shop once, and nothing while the shop has the app installed", async () => {
    const body = { shop_id: 2, shop_domain: OTHER_SHOP };
    expect((await sendWebhook(app.url, "shop/redact", body, { shop: OTHER_SHOP })).status).toBe(200);
    expect(await held(OTHER_SHOP)).toEqual({ settings: 0, grants: 0 });

    await seedOfflineSession(db.prisma, OTHER_SHOP); // installed again
    await seedShop(OTHER_SHOP);
    expect((await sendWebhook(app.url, "shop/redact", body, { shop: OTHER_SHOP })).status).toBe(200);
    expect(await held(OTHER_SHOP)).toEqual({ settings: 1, grants: 1 });
  });

  it("app/uninstalled: the same signed body again does not remove the sessions of a reinstall", async () => {
    const shopObject = { id: 1, myshopify_domain: TEST_SHOP, updated_at: "2026-11-20T10:00:00Z" };
    await seedOfflineSession(db.prisma, TEST_SHOP);
    expect((await sendWebhook(app.url, "app/uninstalled", shopObject)).status).toBe(200);
    expect(await db.prisma.session.count({ where: { shop: TEST_SHOP } })).toBe(0);

    await seedOfflineSession(db.prisma, TEST_SHOP); // installed again
    expect((await sendWebhook(app.url, "app/uninstalled", shopObject)).status).toBe(200);
    expect(await db.prisma.session.count({ where: { shop: TEST_SHOP } })).toBe(1);
  });
});
