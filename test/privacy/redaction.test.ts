// customers/redact and shop/redact as domain functions, on a shop with real history: orders imported through the
// worker into the emulator, a waiting import, a connection in progress, a cart handoff, a past-orders import and
// a data request. Afterwards a search of every text and JSON column of every table must not find the customer.
import { randomBytes } from "node:crypto";
import { Prisma } from "@prisma/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { storeGrant } from "~/connections/grant-lifecycle.server";
import { bindings, sealFor } from "~/crypto/secret-box.server";
import { redactCustomer, redactShop, REDACTED_REASON, shopScopedModels } from "~/privacy/compliance.server";
import { recordDataRequest } from "~/privacy/export.server";
import { DEFAULT_RETENTION_DAYS, pruneExpired } from "~/privacy/retention.server";
import { drainRevocations } from "~/connections/revocations.server";
import { refreshTokens, serviceOrigins, type GrantStore } from "~/service/client.server";
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { drainJobs } from "~/sync/job-runner.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { connectWorkspace, emulatorSettings } from "../helpers/emulator-oauth";
import { resetSyncState, SHOP, syncDeps } from "../sync/support";
import { startTestEmulator } from "../helpers/emulator";
import { findEverywhere, fulfillmentWithContactData, newShopper, orderWithContactData, type Shopper } from "./support";
import { serviceSettingsRow } from "../helpers/service-settings";

const OTHER_SHOP = "other-shop.myshopify.com";
let db: TestDatabase;
let emu: RunningEmulator;
let stores: Map<string, GrantStore>;

beforeAll(async () => {
  [db, emu] = await Promise.all([createTestDatabase(), startTestEmulator()]);
}, 60_000);
afterAll(async () => {
  await emu?.close();
  await db?.close();
});
beforeEach(async () => {
  await resetSyncState(db.prisma, emu);
  for (const table of ["oAuthState", "cartHandoff", "dataRequest", "tokenRevocation", "session"] as const) {
    await (db.prisma[table] as unknown as { deleteMany(): Promise<unknown> }).deleteMany();
  }
  stores = new Map();
});

async function configure(shop: string) {
  const s = emulatorSettings(emu.url);
  await db.prisma.shopSettings.create({ data: serviceSettingsRow(shop, s) });
}

/** A shopper connected the way the storefront does it: tokens from the emulator's consent, the grant stored encrypted. */
async function connect(shop: string, shopper: Shopper) {
  const workspace = await connectWorkspace(emu.url);
  await storeGrant(db.prisma, {
    shop,
    customerId: String(shopper.id),
    customerName: `${shopper.firstName} ${shopper.lastName}`,
    customerEmail: shopper.email,
    workspaceId: workspace.workspaceId,
    tokens: workspace.tokens,
    boundOrigins: serviceOrigins(emulatorSettings(emu.url)),
  });
  stores.set(
    String(shopper.id),
    new MemoryGrantStore({
      ...workspace.tokens,
      refreshToken: workspace.refreshToken,
      workspaceId: workspace.workspaceId,
      boundOrigins: serviceOrigins(emulatorSettings(emu.url)),
    }),
  );
  return workspace;
}

const claimUrlOf = (shopper: Shopper) => `https://service.example/claim/${shopper.id}-secret`;

let event = 0;
const deliver = (shop: string, topic: string, payload: unknown) =>
  recordSyncDelivery(db.prisma, { shop, topic, eventId: `evt-${++event}`, payload });

const runWorker = () =>
  drainJobs({ ...syncDeps(db.prisma, emu, stores), loadSettings: async () => emulatorSettings(emu.url) });

/** Everything busy shoppers leave behind in one shop: imported orders, then work that has not run yet and more. */
async function history(shop: string, shoppers: Shopper[]) {
  const done = [];
  for (const shopper of shoppers) {
    const workspace = await connect(shop, shopper);
    const order = orderWithContactData(shopper);
    await deliver(shop, "ORDERS_CREATE", order);
    await deliver(shop, "FULFILLMENTS_CREATE", fulfillmentWithContactData(shopper, order));
    done.push({ workspace, order });
  }
  await runWorker();
  const result = [];
  for (const [i, shopper] of shoppers.entries()) result.push({ ...done[i], waiting: await unfinished(shop, shopper) });
  return result;
}

async function unfinished(shop: string, shopper: Shopper) {
  // An order that has not run yet (waiting in the queue).
  const waiting = orderWithContactData(shopper);
  await deliver(shop, "ORDERS_CREATE", waiting);
  // A connection in progress at the service's consent step, with the names the storefront gave.
  const state = randomBytes(16).toString("hex");
  await db.prisma.oAuthState.create({
    data: {
      state,
      shop,
      customerId: String(shopper.id),
      customerName: `${shopper.firstName} ${shopper.lastName}`,
      customerEmail: shopper.email,
      codeVerifierEnc: sealFor(bindings.oauthState({ shop, state }, "codeVerifierEnc"), "verifier"),
      redirectUri: "http://app.test/connect/callback",
      expiresAt: new Date(Date.now() + 600_000),
    },
  });
  await db.prisma.cartHandoff.create({
    data: {
      shop,
      customerId: String(shopper.id),
      cartTokenHash: "c".repeat(64),
      contentHash: "h",
      externalCartId: "cart-1",
      idempotencyKey: `k-${shopper.id}`,
      lineCount: 1,
      lines: [{ variantId: "1", title: `Engraved for ${shopper.lastName}`, quantity: 1 }],
      state: "created",
      claimUrl: claimUrlOf(shopper),
    },
  });
  await db.prisma.backfill.create({ data: { shop, customerId: String(shopper.id), days: 60 } });
  await recordDataRequest(db.prisma, {
    shop,
    customerId: String(shopper.id),
    requestId: `dr-${shopper.id}`,
    ordersRequested: [],
  });
  return waiting;
}

describe("an ordinary order import", () => {
  it("stores no email, phone or address of the shopper anywhere", async () => {
    await configure(SHOP);
    const shopper = newShopper();
    await connect(SHOP, shopper);
    await db.prisma.customerGrant.updateMany({ data: { customerName: null, customerEmail: null } }); // the storefront gave none
    const order = orderWithContactData(shopper);
    await deliver(SHOP, "ORDERS_CREATE", order);
    await deliver(SHOP, "FULFILLMENTS_CREATE", fulfillmentWithContactData(shopper, order));
    await runWorker();
    expect(await db.prisma.syncRecord.findMany({ select: { state: true } })).toEqual([
      { state: "imported" },
      { state: "imported" },
    ]);
    for (const value of [
      shopper.email,
      shopper.phone,
      shopper.street,
      "Arlington",
      "22201",
      shopper.ip,
      shopper.lastName,
    ]) {
      expect(await findEverywhere(db.prisma, value), value).toEqual([]);
    }
  });
});

describe("customers/redact", () => {
  it("revokes and deletes the grant, cancels waiting work and leaves nothing of the customer in any table", async () => {
    await configure(SHOP);
    const shopper = newShopper();
    const bystander = newShopper();
    const [{ workspace, order, waiting }] = await history(SHOP, [shopper, bystander]);
    // A guest order Shopify lists in orders_to_redact (no customer on it here).
    const guest = orderWithContactData(shopper, { customer: null });
    await deliver(SHOP, "ORDERS_CREATE", guest);
    const before = await findEverywhere(db.prisma, shopper.email);
    expect(before.length).toBeGreaterThan(0); // grant, connection attempt, data request: what the search must catch

    const report = await redactCustomer(db.prisma, {
      shop: SHOP,
      customerId: String(shopper.id),
      ordersToRedact: [String(guest.id)],
    });
    expect(report).toMatchObject({ grantsDeleted: 1, revocationsQueued: 1 });
    for (const value of [
      shopper.email,
      shopper.phone,
      `${shopper.firstName} ${shopper.lastName}`,
      shopper.lastName,
      "Grace H.",
      claimUrlOf(shopper),
    ]) {
      const hits = await findEverywhere(db.prisma, value);
      // The bystander shares the first name: only their own rows may say "Grace H.".
      if (value === "Grace H.") {
        const deliveries = await db.prisma.$queryRaw<{ n: bigint }[]>`
          SELECT count(*) AS n FROM "WebhookDelivery" WHERE payload->'customer'->>'id' = ${String(shopper.id)}`;
        expect(Number(deliveries[0].n)).toBe(0);
      } else {
        expect(hits, value).toEqual([]);
      }
    }
    expect(await db.prisma.customerGrant.count({ where: { customerId: String(shopper.id) } })).toBe(0);
    expect(await db.prisma.customerGrant.count({ where: { customerId: String(bystander.id) } })).toBe(1);
    // Their cart handoffs are gone (lines and claim link); the bystander's stay.
    expect(await db.prisma.cartHandoff.findMany({ select: { claimUrl: true } })).toEqual([
      { claimUrl: claimUrlOf(bystander) },
    ]);

    // The sync log keeps ids, states and times; what had not run is not sent, and says why.
    const imported = await db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(order.id) } });
    expect(imported).toMatchObject({ state: "imported", customerId: null });
    expect(imported.importedAt).not.toBeNull();
    expect(await db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(waiting.id) } })).toMatchObject({
      state: "skipped",
      reason: REDACTED_REASON,
    });
    expect(await db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(guest.id) } })).toMatchObject({
      state: "skipped",
    });
    const cancelled = await db.prisma.job.findMany({ where: { status: "cancelled" } });
    expect(cancelled.map((j) => j.status)).toEqual(["cancelled", "cancelled"]); // the waiting order and the guest order
    expect(await runWorker()).toBe(1); // the bystander's waiting order only

    // Revoked at the service by the outbox.
    expect(await drainRevocations(db.prisma)).toMatchObject({ revoked: 1 });
    expect((await refreshTokens(emulatorSettings(emu.url), workspace.refreshToken)).ok).toBe(false);

    // A redelivery finds nothing left to change.
    const snapshot = await findEverywhere(db.prisma, String(bystander.id));
    await redactCustomer(db.prisma, { shop: SHOP, customerId: String(shopper.id), ordersToRedact: [String(guest.id)] });
    expect(await findEverywhere(db.prisma, String(bystander.id))).toEqual(snapshot);
    expect(await db.prisma.tokenRevocation.count()).toBe(0);
  });
});

describe("a job running during customers/redact", () => {
  // The customer is erased while their order's job waits for the service's answer; what the job writes afterwards
  // must not bring the customer id back (the record's redaction count fences it).
  it.each([
    ["the service accepts the order", "imported"],
    ["the service fails", "skipped"],
  ] as const)("cannot write the customer back when %s", async (_, stateAfter) => {
    await configure(SHOP);
    const shopper = newShopper();
    await connect(SHOP, shopper);
    const order = orderWithContactData(shopper);
    await deliver(SHOP, "ORDERS_CREATE", order);
    const deps = { ...syncDeps(db.prisma, emu, stores), loadSettings: async () => emulatorSettings(emu.url) };
    let sends = 0;
    const ran = await drainJobs(
      {
        ...deps,
        importOrder: async (settings, store, request, options) => {
          sends += 1;
          await redactCustomer(db.prisma, { shop: SHOP, customerId: String(shopper.id) });
          if (stateAfter === "skipped")
            return {
              ok: false,
              kind: "server_error",
              retryable: true,
              status: 503,
              message: "The service failed.",
              attempts: 1,
            };
          return deps.importOrder(settings, store, request, options);
        },
      },
      { maxRounds: 1 },
    );
    expect([ran, sends]).toEqual([1, 1]);
    const record = await db.prisma.syncRecord.findFirstOrThrow({ where: { externalId: String(order.id) } });
    // Accepted: the record says so (the service has it), without the customer. Failed: the redaction's word stands.
    expect(record).toMatchObject({ state: stateAfter, customerId: null });
    if (stateAfter === "skipped") expect(record.reason).toBe(REDACTED_REASON);
    expect(await findEverywhere(db.prisma, String(shopper.id))).toEqual([]);
  });
});

describe("customers/data_request", () => {
  it("exports what the app holds about the customer: connection, attempts, imports, stored fields, handoffs; no tokens", async () => {
    await configure(SHOP);
    const shopper = newShopper();
    const [{ order, waiting }] = await history(SHOP, [shopper, newShopper()]);
    const { id } = await recordDataRequest(db.prisma, {
      shop: SHOP,
      customerId: String(shopper.id),
      requestId: "dr-full",
      ordersRequested: [String(order.id)],
    });
    const { export: data } = await db.prisma.dataRequest.findUniqueOrThrow({ where: { id } });
    expect(data).toMatchObject({
      customerId: String(shopper.id),
      connection: { customerEmail: shopper.email, workspaceId: "ws-acme", status: "active" },
      connectionAttempts: [{ customerEmail: shopper.email, completed: false }],
      cartHandoffs: [{ lineCount: 1, totalMinor: "0" }],
      pastOrderImports: [{ days: 60 }],
    });
    const exported = data as {
      imports: { shopifyId: string; state: string }[];
      storedWebhookData: { topic: string; fields: { id: unknown } }[];
    };
    expect(exported.imports.map((i) => [i.shopifyId, i.state])).toEqual(
      expect.arrayContaining([
        [String(order.id), "imported"],
        [String(waiting.id), "pending"],
      ]),
    );
    expect(exported.storedWebhookData.map((d) => d.topic).sort()).toEqual([
      "FULFILLMENTS_CREATE",
      "ORDERS_CREATE",
      "ORDERS_CREATE",
    ]);
    expect(JSON.stringify(data)).not.toMatch(/access_?token|refresh_?token|enc:v\d:/i);
    // A redelivery of the same request adds nothing.
    expect(
      await recordDataRequest(db.prisma, {
        shop: SHOP,
        customerId: String(shopper.id),
        requestId: "dr-full",
        ordersRequested: [],
      }),
    ).toEqual({ id, duplicate: true });
  });
});

describe("shop/redact", () => {
  it("revokes every grant, then leaves no row of the shop in any model", async () => {
    await configure(SHOP);
    await configure(OTHER_SHOP);
    const [a, b] = await history(SHOP, [newShopper(), newShopper()]);
    await history(OTHER_SHOP, [newShopper()]);
    await db.prisma.session.create({
      data: {
        id: `offline_${SHOP}`,
        shop: SHOP,
        state: "",
        accessToken: sealFor(bindings.session({ shop: SHOP, id: `offline_${SHOP}` }, "accessToken"), "shpat_x"),
      },
    });

    const models = Object.values(Prisma.ModelName);
    const scoped = shopScopedModels();
    // A model without a shop column must be one that cannot hold a shop's data (reviewed, listed here): the
    // revocation outbox keeps nothing of the shop in clear, a worker heartbeat names only its process, the service's
    // rate budget and its holders name the service's origin and client id and the processes; the shared budgets'
    // buckets are named after the shop and its customers and go by name (below, and "shared budgets" further on).
    expect(models.filter((m) => !scoped.includes(m)).sort()).toEqual([
      "BudgetBucket",
      "ServiceRateBudget",
      "ServiceRateHolder",
      "TokenRevocation",
      "WorkerHeartbeat",
    ]);
    for (const model of scoped) {
      if (["ShopSettings", "CustomerGrant", "SyncRecord", "Job", "WebhookDelivery", "Session"].includes(model)) {
        expect(await count(model, SHOP), model).toBeGreaterThan(0);
      }
    }
    const otherBefore = await Promise.all(scoped.map((m) => count(m, OTHER_SHOP)));

    const deliveries = await db.prisma.webhookDelivery.findMany({
      where: { shop: SHOP },
      select: { eventId: true, topic: true, receivedAt: true },
    });
    await db.prisma.webhookReceipt.create({
      data: { key: `event:${SHOP}:APP_UNINSTALLED:evt-bye`, shop: SHOP, topic: "APP_UNINSTALLED" },
    });
    const report = await redactShop(db.prisma, SHOP);
    expect(report.revocationsQueued).toBe(2);
    for (const model of scoped.filter((m) => m !== "WebhookReceipt")) expect(await count(model, SHOP), model).toBe(0);
    // What is kept: the ids of its deliveries (no payload, nothing of a customer), until the retention period
    // (default 90 days) after each arrived, so a replay after a reinstall is a redelivery.
    const receipts = await db.prisma.webhookReceipt.findMany({ where: { shop: SHOP }, orderBy: { key: "asc" } });
    expect(receipts.map((r) => r.key)).toEqual(
      [`event:${SHOP}:APP_UNINSTALLED:evt-bye`, ...deliveries.map((d) => `delivery:${SHOP}:${d.eventId}`)].sort(),
    );
    for (const r of receipts)
      expect(r.expiresAt!.getTime() - r.receivedAt.getTime()).toBe(DEFAULT_RETENTION_DAYS * 86_400_000);
    expect(await findEverywhere(db.prisma, SHOP)).toEqual(["WebhookReceipt.key", "WebhookReceipt.shop"]);
    for (const shopper of [a, b])
      expect(await findEverywhere(db.prisma, String(shopper.order.customer.id))).toEqual([]);
    expect(await Promise.all(scoped.map((m) => count(m, OTHER_SHOP)))).toEqual(otherBefore);
    const replayed = await recordSyncDelivery(db.prisma, {
      shop: SHOP,
      topic: "ORDERS_CREATE",
      eventId: deliveries[0].eventId,
      payload: a.order,
    });
    expect(replayed).toMatchObject({ duplicate: true });
    expect(await db.prisma.syncRecord.count({ where: { shop: SHOP } })).toBe(0);
    expect(await db.prisma.job.count({ where: { shop: SHOP } })).toBe(0);
    // New deliveries of the shop are taken.
    expect(await deliver(SHOP, "ORDERS_CREATE", a.order)).toMatchObject({ duplicate: false });
    await db.prisma.job.deleteMany({ where: { shop: SHOP } });
    await db.prisma.jobShop.deleteMany({ where: { shop: SHOP } });
    await db.prisma.syncRecord.deleteMany({ where: { shop: SHOP } });
    await db.prisma.webhookDelivery.deleteMany({ where: { shop: SHOP } });
    // Once they expire, housekeeping's retention deletes them.
    const [earliest, latest] = [
      Math.min(...receipts.map((r) => r.expiresAt!.getTime())),
      Math.max(...receipts.map((r) => r.expiresAt!.getTime())),
    ];
    expect(await pruneExpired(db.prisma, { now: new Date(earliest - 1) })).toMatchObject({ receiptsDeleted: 0 });
    expect(await pruneExpired(db.prisma, { now: new Date(latest + 1) })).toMatchObject({
      receiptsDeleted: receipts.length,
    });
    expect(await findEverywhere(db.prisma, SHOP)).toEqual([]);

    expect(await drainRevocations(db.prisma)).toMatchObject({ revoked: 2 });
    for (const { workspace } of [a, b])
      expect((await refreshTokens(emulatorSettings(emu.url), workspace.refreshToken)).ok).toBe(false);
    expect(await redactShop(db.prisma, SHOP)).toEqual({ revocationsQueued: 0, rowsDeleted: 0 });
    expect(await db.prisma.webhookReceipt.count({ where: { shop: SHOP } })).toBe(0);
  });
});

function count(model: string, shop: string): Promise<number> {
  const delegate = (db.prisma as unknown as Record<string, { count(args: object): Promise<number> }>)[
    model.charAt(0).toLowerCase() + model.slice(1)
  ];
  return delegate.count({ where: { shop } });
}

describe("shared budgets", () => {
  const bucket = (key: string) =>
    db.prisma.budgetBucket.create({ data: { key, tokens: 1, burst: 5, refillMs: 1_000 } });
  const keys = async () => (await db.prisma.budgetBucket.findMany({ select: { key: true } })).map((b) => b.key).sort();

  it("customers/redact forgets that customer's buckets; shop/redact every bucket named after the shop", async () => {
    const other = `x${SHOP}`; // a domain that ends like the shop's is another shop
    for (const key of [
      `shop:${SHOP}`,
      `connect:shop:${SHOP}`,
      `connect:customer:${SHOP}:71`,
      `request:customer:${SHOP}:71`,
      `request:customer:${SHOP}:715`,
      `shop:${other}`,
      `request:shop:${other}`,
      `request:customer:${other}:71`,
      "cart:0f0f",
    ])
      await bucket(key);
    await redactCustomer(db.prisma, { shop: SHOP, customerId: "71" });
    expect(await keys()).not.toContain(`connect:customer:${SHOP}:71`);
    expect(await keys()).not.toContain(`request:customer:${SHOP}:71`);
    expect(await keys()).toContain(`request:customer:${SHOP}:715`);
    await redactShop(db.prisma, SHOP);
    expect(await keys()).toEqual(
      ["cart:0f0f", `request:customer:${other}:71`, `request:shop:${other}`, `shop:${other}`].sort(),
    );
  });
});
