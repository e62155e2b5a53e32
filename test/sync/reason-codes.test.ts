// Records that wait (or were skipped) for something are found by their reason code, never by their words: a
// record whose message was reworded (here: replaced outright, as an older release's wording would be) is still
// woken when the thing it waits for happens.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SyncReasonCode } from "@prisma/client";
import type { RunningEmulator } from "../../emulator/server";
import type { GrantStore } from "~/service/client.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { recordSyncDelivery } from "~/sync/intake.server";
import { onCustomerConnected } from "~/sync/on-connect.server";
import { onSettingsSaved } from "~/sync/on-settings-saved.server";
import { retryRecordJob } from "~/sync/queue.server";
import { reasonText, SYNC_REASON_CODES } from "~/sync/reasons";
import { drainJobs, type SyncDeps } from "~/sync/worker.server";
import {
  Clock,
  connectCustomer,
  injectFault,
  newId,
  resetSyncState,
  SHOP,
  shopifyFulfillment,
  shopifyOrder,
  startTestEmulator,
  syncDeps,
} from "./support";

let db: TestDatabase;
let emulator: RunningEmulator;
let stores: Map<string, GrantStore>;
let clock: Clock;
let deps: SyncDeps;
const CUSTOMER = "7000000001";
const REWORDED = "Words from another release that no code knows.";

beforeAll(async () => {
  [db, emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
});
afterAll(async () => {
  await emulator?.close();
  await db?.close();
});
beforeEach(async () => {
  await resetSyncState(db.prisma, emulator);
  stores = new Map();
  clock = new Clock();
  deps = syncDeps(db.prisma, emulator, stores, clock);
});

const deliver = (topic: string, payload: unknown) =>
  recordSyncDelivery(db.prisma, { shop: SHOP, topic, eventId: `evt-${newId()}`, payload });
const record = (kind: "order" | "shipment", externalId: string | number) =>
  db.prisma.syncRecord.findUniqueOrThrow({ where: { shop_kind_externalId: { shop: SHOP, kind, externalId: String(externalId) } } });
const reword = (id: string) => db.prisma.syncRecord.update({ where: { id }, data: { reason: REWORDED } });

describe("reason codes", () => {
  it("the database's enum and the words module list the same codes, each with words", () => {
    expect([...SYNC_REASON_CODES].sort()).toEqual(Object.values(SyncReasonCode).sort());
    for (const code of SYNC_REASON_CODES) expect(reasonText(code, { detail: "The service said no.", noun: "order" }).length).toBeGreaterThan(15);
  });

  it("saving the settings wakes an import waiting for them whatever its message says", async () => {
    await connectCustomer(db.prisma, emulator, stores, CUSTOMER);
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await drainJobs({ ...deps, loadSettings: async () => null });
    const waiting = await record("order", order.id);
    expect(waiting).toMatchObject({ state: "waiting", reasonCode: "settings_missing" });
    await reword(waiting.id);
    expect(await onSettingsSaved(db.prisma, SHOP, clock.now())).toBe(1);
    expect(await drainJobs(deps)).toBe(1);
    expect(await record("order", order.id)).toMatchObject({ state: "imported", reasonCode: null, reason: null });
  });

  it("an order imported at last wakes its shipment skipped for it whatever the shipment's message says", async () => {
    await connectCustomer(db.prisma, emulator, stores, CUSTOMER);
    await injectFault(emulator, { path: "/api/v1/orders", status: 422, body: { error: "invalid_payload", message: "lines[0].title: too long" } });
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    await deliver("ORDERS_CREATE", order);
    await drainJobs(deps);
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    await drainJobs(deps);
    const skipped = await record("shipment", fulfillment.id);
    expect(skipped).toMatchObject({ state: "skipped", reasonCode: "order_not_imported" });
    await reword(skipped.id);
    expect(await retryRecordJob(db.prisma, SHOP, (await record("order", order.id)).id, clock.now())).toBe(true);
    await drainJobs(deps);
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
    expect(await record("shipment", fulfillment.id)).toMatchObject({ state: "imported", reasonCode: null });
  });

  it("a reconnection wakes an import waiting for it whatever its message says", async () => {
    await connectCustomer(db.prisma, emulator, stores, CUSTOMER, "ws-acme", "needs_reconnect");
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await drainJobs(deps);
    const waiting = await record("order", order.id);
    expect(waiting).toMatchObject({ state: "waiting", reasonCode: "needs_reconnect" });
    await reword(waiting.id);
    await connectCustomer(db.prisma, emulator, stores, CUSTOMER);
    expect(await onCustomerConnected(db.prisma, { shop: SHOP, customerId: CUSTOMER }, { now: clock.now(), backfill: false })).toMatchObject({
      requeued: 1,
    });
    expect(await drainJobs(deps)).toBe(1);
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
  });
});
