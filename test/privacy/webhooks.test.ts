// The lifecycle and privacy webhooks over HTTP against the production build: Shopify's library checks the HMAC,
// each topic does its work once, a redelivery changes nothing, and all of them work after an uninstall. Shopify's
// token endpoint (a reinstall's token exchange) is answered by MSW; the service is the emulator.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import type { RunningEmulator } from "../../emulator/server";
import { storeGrant } from "~/connections/grant-lifecycle.server";
import { KEPT_BY_SHOP_REDACT, shopScopedModels } from "~/privacy/compliance.server";
import { refreshTokens, serviceOrigins } from "~/service/client.server";
import { enqueueJob, leaseJobs } from "~/sync/queue.server";
import { startApp, type RunningApp } from "../helpers/app";
import { CHROME_USER_AGENT, launchBrowser, newContext, screenshotPath } from "../helpers/browser";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { emulatorSettings, startEmulatorFor } from "../helpers/emulator-oauth";
import { mintTokens } from "../sync/support";
import {
  embeddedUrl,
  mintSessionToken,
  seedOfflineSession,
  sendWebhook,
  TEST_SHOP,
  webhookHmac,
} from "../helpers/shopify";
import { dataPath, readData } from "../helpers/route-data";
import { findEverywhere, newShopper, orderWithContactData } from "./support";
import { serviceSettingsRow } from "../helpers/service-settings";

let db: TestDatabase;
let app: RunningApp;
let emu: RunningEmulator;
const tokenRequests: unknown[] = [];
// Before the app is imported: Shopify's library keeps the fetch it finds at import time.
const shopify = setupServer(
  http.post("https://:shop/admin/oauth/access_token", async ({ request }) => {
    tokenRequests.push(await request.json());
    return HttpResponse.json({
      access_token: "shpat_after_reinstall",
      scope: "read_orders,read_fulfillments,read_customers,read_products,write_app_proxy",
      expires_in: 3600,
      refresh_token: "shprt_after_reinstall",
      refresh_token_expires_in: 90 * 86_400,
    });
  }),
);

beforeAll(async () => {
  // One key for the test and the app, so each can open what the other stored (settings, grants, the outbox).
  process.env.ENCRYPTION_KEYS = `wh1:${randomBytes(32).toString("base64")}`;
  shopify.listen({ onUnhandledRequest: "bypass" });
  db = await createTestDatabase();
  await seedOfflineSession(db.prisma);
  app = await startApp(db);
  emu = await startEmulatorFor(app.url);
}, 300_000);
afterAll(async () => {
  shopify.close();
  await emu?.close();
  await app?.close();
  await db?.close();
});

async function configure(shop: string) {
  const s = emulatorSettings(emu.url);
  await db.prisma.shopSettings.upsert({
    where: { shop },
    update: {},
    create: serviceSettingsRow(shop, { ...s, environment: undefined }),
  });
}

// Tokens minted in the emulator directly: the consent over HTTP is tested elsewhere (and MSW's interception of
// fetch, needed here for Shopify's token endpoint, does not let that helper cancel a response body).
async function connect(shop: string, customerId: string, name: string, email: string) {
  const minted = mintTokens(emu, "ws-acme");
  const tokens = {
    accessToken: minted.access_token,
    refreshToken: minted.refresh_token,
    accessTokenExpiresAt: null,
    scopes: minted.scope.split(" "),
  };
  await storeGrant(db.prisma, {
    shop,
    customerId,
    customerName: name,
    customerEmail: email,
    workspaceId: "ws-acme",
    tokens,
    boundOrigins: serviceOrigins(emulatorSettings(emu.url)),
  });
  return { refreshToken: minted.refresh_token };
}

/** Row counts of every model: "no change" means this is equal before and after. */
async function snapshot() {
  const counts: Record<string, number> = {};
  for (const model of [
    "Session",
    "ShopSettings",
    "CustomerGrant",
    "SyncRecord",
    "Job",
    "WebhookDelivery",
    "DataRequest",
    "TokenRevocation",
    "OAuthState",
  ]) {
    counts[model] = await (db.prisma as unknown as Record<string, { count(): Promise<number> }>)[
      model.charAt(0).toLowerCase() + model.slice(1)
    ].count();
  }
  const settings = await db.prisma.shopSettings.findMany({ orderBy: { shop: "asc" } });
  const sessions = await db.prisma.session.findMany({ orderBy: { id: "asc" }, select: { id: true, scope: true } });
  return { counts, settings, sessions };
}

async function eventually(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const TOPICS = ["customers/redact", "customers/data_request", "shop/redact", "app/uninstalled", "app/scopes_update"];

describe("every lifecycle and privacy topic", () => {
  it("answers 401 to a bad HMAC and changes nothing", async () => {
    await configure(TEST_SHOP);
    await connect(TEST_SHOP, "9001", "Kept Customer", "kept@example.com");
    const before = await snapshot();
    for (const topic of TOPICS) {
      const payload = {
        shop_domain: TEST_SHOP,
        customer: { id: 9001 },
        orders_to_redact: [],
        current: ["read_orders"],
      };
      const response = await sendWebhook(app.url, topic, payload, {
        hmac: webhookHmac(JSON.stringify(payload), "not-our-secret"),
      });
      expect(response.status, topic).toBe(401);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("customers/redact", () => {
  it("erases the customer, revokes their grant at the service, and a redelivery changes nothing", async () => {
    await configure(TEST_SHOP);
    const shopper = newShopper();
    const workspace = await connect(
      TEST_SHOP,
      String(shopper.id),
      `${shopper.firstName} ${shopper.lastName}`,
      shopper.email,
    );
    expect((await sendWebhook(app.url, "orders/create", orderWithContactData(shopper))).status).toBe(200);
    expect(await findEverywhere(db.prisma, shopper.email)).toEqual(["CustomerGrant.customerEmail"]);

    const body = {
      shop_id: 1,
      shop_domain: TEST_SHOP,
      customer: { id: shopper.id, email: shopper.email, phone: shopper.phone },
      orders_to_redact: [],
    };
    expect((await sendWebhook(app.url, "customers/redact", body, { eventId: "evt-redact-1" })).status).toBe(200);
    for (const value of [shopper.email, shopper.phone, shopper.lastName])
      expect(await findEverywhere(db.prisma, value), value).toEqual([]);
    // Revoked in the background, after the answer.
    await eventually(async () => (await db.prisma.tokenRevocation.count()) === 0, "the revocation");
    expect((await refreshTokens(emulatorSettings(emu.url), workspace.refreshToken)).ok).toBe(false);

    // The customer connects again; the same event delivered again must not erase the new connection.
    await connect(TEST_SHOP, String(shopper.id), "Back Again", "back@example.com");
    const before = await snapshot();
    expect((await sendWebhook(app.url, "customers/redact", body, { eventId: "evt-redact-1" })).status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it("erases the right customer when Shopify's id is beyond 2^53 (the raw body is read with exact ids)", async () => {
    await configure(TEST_SHOP);
    const big = "115310627314723954"; // JSON.parse alone makes it 115310627314723950
    await connect(TEST_SHOP, big, "Big Id", "big.id@example.com");
    await connect(TEST_SHOP, "115310627314723950", "Neighbour Id", "neighbour@example.com");
    const body = `{"shop_domain":"${TEST_SHOP}","customer":{"id":${big},"email":"big.id@example.com"},"orders_to_redact":[]}`;
    const response = await fetch(new URL("/webhooks/customers/redact", app.url), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Shopify-Topic": "customers/redact",
        "X-Shopify-Shop-Domain": TEST_SHOP,
        "X-Shopify-Hmac-Sha256": webhookHmac(body),
        "X-Shopify-Webhook-Id": "wh-big",
        "X-Shopify-Event-Id": "evt-big",
        "X-Shopify-Api-Version": "2026-10",
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(
      await db.prisma.customerGrant.findMany({
        where: { customerId: { in: [big, "115310627314723950"] } },
        select: { customerId: true },
      }),
    ).toEqual([{ customerId: "115310627314723950" }]);
  });
});

describe("customers/data_request", () => {
  it("puts an export on the Privacy page until the merchant marks it handled; a redelivery adds nothing", async () => {
    await configure(TEST_SHOP);
    await connect(TEST_SHOP, "9100", "Export Me", "export.me@example.com");
    const body = {
      shop_domain: TEST_SHOP,
      customer: { id: 9100, email: "export.me@example.com" },
      orders_requested: [],
      data_request: { id: 555 },
    };
    expect((await sendWebhook(app.url, "customers/data_request", body, { eventId: "evt-dr-1" })).status).toBe(200);
    expect((await sendWebhook(app.url, "customers/data_request", body, { eventId: "evt-dr-2" })).status).toBe(200); // same request id
    expect(await db.prisma.dataRequest.count()).toBe(1);
    // The webhook's own delivery row keeps nothing of the body.
    expect(await findEverywhere(db.prisma, "export.me@example.com")).toEqual([
      "CustomerGrant.customerEmail",
      "DataRequest.export",
    ]);

    const page = await admin(dataPath("/app/privacy", "routes/app.privacy"));
    expect(page.status).toBe(200);
    const { requests } = (await readData(page)) as {
      requests: { id: string; customerId: string; export: { connection: { customerEmail: string } } }[];
    };
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      customerId: "9100",
      export: { connection: { customerEmail: "export.me@example.com", workspaceId: "ws-acme" } },
    });
    expect(JSON.stringify(requests[0].export)).not.toMatch(/accessToken|refreshToken|enc:v\d/);
    // Another shop's admin neither sees nor closes it.
    const other = await admin(dataPath("/app/privacy", "routes/app.privacy"), {
      method: "POST",
      shop: "other.myshopify.com",
      body: new URLSearchParams({ intent: "handled", requestId: requests[0].id }),
    });
    expect(other.status).not.toBe(200);

    // In the browser: the request is listed with its download; "Mark handled" takes it off the list.
    const browser = await launchBrowser();
    try {
      const context = await newContext(browser, { Authorization: `Bearer ${await mintSessionToken()}` });
      const tab = await context.newPage();
      expect((await tab.goto(await embeddedUrl(app.url, "/app/privacy")))?.status()).toBe(200);
      await tab.getByRole("button", { name: "Download export of customer 9100" }).waitFor();
      await tab.screenshot({ path: screenshotPath("privacy-data-request"), fullPage: true });
      const [download] = await Promise.all([
        tab.waitForEvent("download"),
        tab.getByRole("button", { name: "Download export of customer 9100" }).click(),
      ]);
      expect(JSON.parse(readFileSync((await download.path())!, "utf8"))).toMatchObject({
        customerId: "9100",
        connection: { customerEmail: "export.me@example.com" },
      });
      await tab.getByRole("button", { name: "Mark handled: the request of customer 9100" }).click();
      await tab.getByText("No open data requests").waitFor();
    } finally {
      await browser.close();
    }
    expect(await db.prisma.dataRequest.count({ where: { handledAt: { not: null } } })).toBe(1);
    expect(
      ((await readData(await admin(dataPath("/app/privacy", "routes/app.privacy")))) as { requests: unknown[] })
        .requests,
    ).toEqual([]);
  });
});

describe("the Settings page's retention period", () => {
  it("shows the default and saves a new period within the bounds", async () => {
    expect(await readData(await admin(dataPath("/app/settings", "routes/app.settings")))).toMatchObject({
      retentionDays: 90,
    });
    const save = (days: string) =>
      admin(dataPath("/app/settings", "routes/app.settings"), {
        method: "POST",
        body: new URLSearchParams({ intent: "retention", retentionDays: days }),
      });
    for (const bad of ["3", "366", "30.5", "abc", ""]) expect((await save(bad)).status, bad).toBe(422);
    expect((await save("30")).status).toBe(200);
    expect(await db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: TEST_SHOP } })).toMatchObject({
      retentionDays: 30,
    });
    expect(await readData(await admin(dataPath("/app/settings", "routes/app.settings")))).toMatchObject({
      retentionDays: 30,
    });
  });
});

describe("app/uninstalled, reinstall and scopes", () => {
  const SHOP = "leaving.myshopify.com";

  it("stops the shop's sync at once and deletes its sessions; compliance topics still work; a reinstall resumes", async () => {
    await seedOfflineSession(db.prisma, SHOP);
    await configure(SHOP);
    await enqueueJob(db.prisma, { shop: SHOP, kind: "order", orderKey: "order:1" });
    expect(
      (await sendWebhook(app.url, "app/uninstalled", { id: 1, domain: SHOP }, { shop: SHOP, eventId: "evt-bye" }))
        .status,
    ).toBe(200);
    expect(await db.prisma.session.count({ where: { shop: SHOP } })).toBe(0);
    expect(await leaseJobs(db.prisma, { workerId: "w", limit: 10 })).toEqual([]); // kept, not run
    expect(await db.prisma.job.count({ where: { shop: SHOP, status: "queued" } })).toBe(1);
    const before = await snapshot();
    expect(
      (await sendWebhook(app.url, "app/uninstalled", { id: 1, domain: SHOP }, { shop: SHOP, eventId: "evt-bye" }))
        .status,
    ).toBe(200);
    expect(await snapshot()).toEqual(before);

    // Privacy requests after the uninstall, with no session left.
    const dr = { shop_domain: SHOP, customer: { id: 42 }, orders_requested: [], data_request: { id: 9 } };
    expect((await sendWebhook(app.url, "customers/data_request", dr, { shop: SHOP })).status).toBe(200);
    expect(await db.prisma.dataRequest.count({ where: { shop: SHOP } })).toBe(1);

    // The merchant comes back: a token exchange stores a new (expiring) offline session, stored encrypted.
    const page = await admin(dataPath("/app", "routes/app"), { shop: SHOP });
    expect(page.status).toBe(200);
    expect(tokenRequests.at(-1)).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      expiring: "1",
    });
    const session = await db.prisma.session.findFirstOrThrow({ where: { shop: SHOP, isOnline: false } });
    expect(session.accessToken).toMatch(/^enc:v2:/);
    expect(session.refreshToken).toMatch(/^enc:v2:/);
    expect(session.expires).not.toBeNull();
    expect(await db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: SHOP } })).toMatchObject({
      uninstalledAt: null,
    });
    expect(await leaseJobs(db.prisma, { workerId: "w", limit: 10 })).toHaveLength(1);
  });

  it("app/scopes_update stores the scopes the merchant granted", async () => {
    const body = {
      id: 1,
      previous: ["read_orders"],
      current: ["read_orders", "read_products"],
      updated_at: new Date().toISOString(),
    };
    expect((await sendWebhook(app.url, "app/scopes_update", body)).status).toBe(200);
    expect(await db.prisma.session.findFirstOrThrow({ where: { shop: TEST_SHOP } })).toMatchObject({
      scope: "read_orders,read_products",
    });
  });
});

describe("shop/redact", () => {
  it("deletes every row of the shop, revoking its grants first; a redelivery finds nothing to do", async () => {
    const SHOP = "erased.myshopify.com";
    // The same delivery each time: a redelivery carries the same event id.
    const eraseShop = () =>
      sendWebhook(app.url, "shop/redact", { shop_id: 2, shop_domain: SHOP }, { shop: SHOP, eventId: "evt-erase" });
    await seedOfflineSession(db.prisma, SHOP);
    await configure(SHOP);
    const workspace = await connect(SHOP, "9300", "Shop Customer", "shop.customer@example.com");
    const order = orderWithContactData(newShopper());
    expect((await sendWebhook(app.url, "orders/create", order, { shop: SHOP, eventId: "evt-order" })).status).toBe(200);
    expect((await sendWebhook(app.url, "app/uninstalled", { id: 2 }, { shop: SHOP, eventId: "evt-gone" })).status).toBe(
      200,
    );
    const others = await snapshot();

    expect((await eraseShop()).status).toBe(200);
    for (const model of shopScopedModels().filter((m) => !KEPT_BY_SHOP_REDACT.includes(m))) {
      const count = await (db.prisma as unknown as Record<string, { count(a: object): Promise<number> }>)[
        model.charAt(0).toLowerCase() + model.slice(1)
      ].count({ where: { shop: SHOP } });
      expect(count, model).toBe(0);
    }
    // Only the receipts of its deliveries stay (ids, no payload), until they expire.
    expect(await findEverywhere(db.prisma, SHOP)).toEqual(["WebhookReceipt.key", "WebhookReceipt.shop"]);
    expect(await db.prisma.webhookReceipt.count({ where: { shop: SHOP, expiresAt: null } })).toBe(0);
    await eventually(async () => (await db.prisma.tokenRevocation.count()) === 0, "the revocation");
    expect((await refreshTokens(emulatorSettings(emu.url), workspace.refreshToken)).ok).toBe(false);
    // Nothing of the other shops changed (their rows are all still there).
    expect((await db.prisma.customerGrant.count()) + 1).toBe(others.counts.CustomerGrant);
    const after = await snapshot();
    expect((await eraseShop()).status).toBe(200);
    expect(await snapshot()).toEqual(after);

    // The merchant installs again; old deliveries replayed now are answered 200 and change nothing: the order is
    // not imported again, the old uninstall does not stop the shop.
    await seedOfflineSession(db.prisma, SHOP);
    const reinstalled = await snapshot();
    expect((await sendWebhook(app.url, "orders/create", order, { shop: SHOP, eventId: "evt-order" })).status).toBe(200);
    expect((await sendWebhook(app.url, "app/uninstalled", { id: 2 }, { shop: SHOP, eventId: "evt-gone" })).status).toBe(
      200,
    );
    expect(await snapshot()).toEqual(reinstalled);
    // A new order is taken.
    expect(
      (
        await sendWebhook(app.url, "orders/create", orderWithContactData(newShopper()), {
          shop: SHOP,
          eventId: "evt-new",
        })
      ).status,
    ).toBe(200);
    expect(await db.prisma.syncRecord.count({ where: { shop: SHOP } })).toBe(1);
  });
});

async function admin(path: string, init: RequestInit & { shop?: string } = {}) {
  return fetch(new URL(path, app.url), {
    ...init,
    redirect: "manual",
    headers: {
      Authorization: `Bearer ${await mintSessionToken(init.shop ?? TEST_SHOP)}`,
      "User-Agent": CHROME_USER_AGENT,
    },
  });
}
