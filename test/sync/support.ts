// Shared pieces of the sync tests: an emulator, a connected customer (grant row + tokens minted in the emulator),
// the worker's collaborators pointed at the emulator, a movable clock, and Shopify-shaped payloads.
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { emulatorInternals, type RunningEmulator } from "../../emulator/server";
import {
  createServiceContext,
  importOrder,
  importShipment,
  serviceOrigins,
  type GrantStore,
  type ServiceSettings,
} from "~/service/client.server";
import type { SyncDeps } from "~/sync/worker.server";
import { resetEmulator, type EmulatorState } from "../helpers/emulator";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { TEST_SHOP } from "../helpers/shopify";

export const SHOP = TEST_SHOP;

export function settingsFor(emulator: RunningEmulator): ServiceSettings {
  return emulatorSettings(emulator.url);
}

/** Tokens for a workspace, minted straight in the emulator (the OAuth flow itself is tested elsewhere). */
export function mintTokens(emulator: RunningEmulator, workspaceId: string) {
  const ctx = emulatorInternals(emulator);
  const grant = { id: randomUUID(), clientId: "sandbox-client", workspaceId, revoked: false };
  return ctx.oauth.issueTokens(grant, ["orders:write", "shipments:write"], Date.now());
}

/** A CustomerGrant row (what routing reads) plus an in-memory token store for the worker. */
export async function connectCustomer(
  prisma: PrismaClient,
  emulator: RunningEmulator,
  stores: Map<string, GrantStore>,
  customerId: string,
  workspaceId = "ws-acme",
  status: "active" | "needs_reconnect" = "active",
) {
  const tokens = mintTokens(emulator, workspaceId);
  await prisma.customerGrant.upsert({
    where: { shop_customerId: { shop: SHOP, customerId } },
    create: {
      shop: SHOP,
      customerId,
      workspaceId,
      scopes: tokens.scope,
      accessTokenEnc: "unused-in-tests",
      status,
      boundOrigins: serviceOrigins(settingsFor(emulator)),
    },
    update: { workspaceId, status },
  });
  stores.set(
    customerId,
    new MemoryGrantStore({
      accessToken: tokens.access_token,
      accessTokenExpiresAt: new Date(Date.now() + 3600_000),
      refreshToken: tokens.refresh_token,
      scopes: tokens.scope.split(" "),
      workspaceId,
      boundOrigins: serviceOrigins(settingsFor(emulator)),
    }),
  );
}

/** Real time plus an offset that tests move forward past backoffs and leases. */
export class Clock {
  offset = 0;
  get ms() {
    return Date.now() + this.offset;
  }
  set ms(value: number) {
    this.offset = Math.max(this.offset, value - Date.now());
  }
  now = () => new Date(this.ms);
  advance(ms: number) {
    this.offset += ms;
  }
}

/** Worker collaborators against the emulator. One HTTP attempt per job run: the queue does the retrying. */
export function syncDeps(
  prisma: PrismaClient,
  emulator: RunningEmulator,
  stores: Map<string, GrantStore>,
  clock?: Clock,
): SyncDeps {
  const context = (settings: ServiceSettings) =>
    createServiceContext(settings, { timeoutMs: 1_000, retry: { maxAttempts: 1 } });
  return {
    prisma,
    now: clock?.now,
    loadSettings: async () => settingsFor(emulator),
    grantStore: (grant) => {
      const store = stores.get(grant.customerId);
      if (!store) throw new Error(`no tokens for customer ${grant.customerId}`);
      return store;
    },
    importOrder: (settings, store, request, options) => importOrder(context(settings), store, request, options),
    importShipment: (settings, store, request, options) => importShipment(context(settings), store, request, options),
  };
}

/** Back to nothing between tests: the emulator's data and every sync table of the shared test database. */
export async function resetSyncState(prisma: PrismaClient, emulator: RunningEmulator) {
  await resetEmulator(emulator);
  await clearSyncTables(prisma);
}

/** Empties what the sync writes (queue, records, deliveries, grants, settings, backfills). */
export async function clearSyncTables(prisma: PrismaClient) {
  for (const table of [
    "job",
    "jobShop",
    "syncRecord",
    "webhookDelivery",
    "customerGrant",
    "shopSettings",
    "backfill",
    "bulkRun",
  ] as const) {
    await (prisma[table] as unknown as { deleteMany(): Promise<unknown> }).deleteMany();
  }
}

/** A fresh database for the test file, its sync tables emptied before each test. */
export function withSyncDatabase(): { readonly prisma: PrismaClient } {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(() => clearSyncTables(db!.prisma));
  return {
    get prisma() {
      return db!.prisma;
    },
  };
}

/** Non-replayed 201s per external id: how many times the service really imported (or updated) it. */
export function importCounts(state: EmulatorState, path: "/api/v1/orders" | "/api/v1/shipments"): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of state.requests) {
    if (r.path === path && r.status === 201 && !r.replayed && r.external_id)
      counts.set(r.external_id, (counts.get(r.external_id) ?? 0) + 1);
  }
  return counts;
}

let nextId = 5_000_000_000_000n;
export const newId = () => (nextId += 1n).toString();

/** An orders/create payload in Shopify's REST webhook shape (trimmed to what matters, ids as Shopify sends). */
export function shopifyOrder(overrides: Record<string, unknown> = {}, lineCount = 2) {
  const id = Number(newId());
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${1000 + (id % 1000)}`,
    created_at: "2026-11-20T10:15:00-05:00",
    updated_at: "2026-11-20T10:15:03-05:00",
    currency: "USD",
    presentment_currency: "USD",
    financial_status: "paid",
    fulfillment_status: null,
    total_price: "39.00",
    customer: { id: 7_000_000_001, email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
    line_items: Array.from({ length: lineCount }, (_, i) => {
      const lineId = Number(newId());
      return {
        id: lineId,
        admin_graphql_api_id: `gid://shopify/LineItem/${lineId}`,
        title: i === 0 ? "Blue mug" : `Item ${i}`,
        name: i === 0 ? "Blue mug - Large" : `Item ${i}`,
        quantity: 1 + i,
        current_quantity: 1 + i,
        fulfillable_quantity: 1 + i,
        sku: `SKU-${i}`,
        product_id: 632910392 + i,
        variant_id: 808950810 + i,
        price: "19.50",
      };
    }),
    refunds: [],
    ...overrides,
  };
}

export function shopifyFulfillment(order: ReturnType<typeof shopifyOrder>, overrides: Record<string, unknown> = {}) {
  const id = Number(newId());
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Fulfillment/${id}`,
    order_id: order.id,
    status: "success",
    created_at: "2026-11-21T08:00:00-05:00",
    service: "manual",
    shipment_status: null,
    tracking_company: "UPS",
    tracking_number: "1Z2345",
    tracking_numbers: ["1Z2345"],
    tracking_url: "https://www.ups.com/WebTracking?loc=en_US&requester=ST&trackNums=1Z2345",
    line_items: order.line_items.map((line) => ({
      id: line.id,
      quantity: line.quantity,
      title: line.title,
      sku: line.sku,
    })),
    ...overrides,
  };
}
