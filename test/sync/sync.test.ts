// The sync engine against the service emulator: intake → queue → worker → emulator, counted at the emulator.
import { beforeEach, describe, expect, it } from "vitest";
import { SyncReasonCode } from "@prisma/client";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { contentHash, idempotencyKey } from "~/sync/mapping.server";
import { mapOrder } from "~/sync/mapping.server";
import { onCustomerConnected } from "~/sync/on-connect.server";
import { onSettingsSaved } from "~/sync/on-settings-saved.server";
import { leaseJobs, retryRecordJob } from "~/sync/queue.server";
import { reasonText, SYNC_REASON_CODES } from "~/sync/reasons";
import { notifyWorkers } from "~/sync/signal.server";
import { failure } from "~/service/outcomes.server";
import { drainJobs, runJob, startWorker, type SyncDeps } from "~/sync/job-runner.server";
import { connectCustomer, importCounts, newId, SHOP, settingsFor, shopifyFulfillment, shopifyOrder } from "./support";
import { withSyncHarness } from "../helpers/sync-harness";
import { emulatorState, injectFault } from "../helpers/emulator";

const CUSTOMER = "7000000001";

const sync = withSyncHarness();
beforeEach(async () => {
  await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
});

let event = 0;
async function deliver(topic: string, payload: unknown, eventId = `evt-${++event}-${newId()}`) {
  return recordSyncDelivery(sync.db.prisma, { shop: SHOP, topic, eventId, payload });
}

/** Runs the worker until nothing is due, moving the clock past backoffs (up to `rounds` times). */
async function settle(rounds = 20) {
  for (let i = 0; i < rounds; i++) {
    if ((await drainJobs(sync.deps)) > 0) continue;
    const now = sync.clock.now();
    const queued = await sync.db.prisma.job.findFirst({
      where: { status: "queued", runAt: { gt: now } },
      orderBy: { runAt: "asc" },
    });
    const leased = await sync.db.prisma.job.findFirst({ where: { status: "running" }, orderBy: { leaseUntil: "asc" } });
    const due = Math.min(
      queued?.runAt.getTime() ?? Infinity,
      leased?.leaseUntil ? leased.leaseUntil.getTime() + 1 : Infinity,
    );
    if (due === Infinity) return;
    sync.clock.ms = due + 1;
  }
}

const record = (kind: "order" | "shipment", externalId: string | number) =>
  sync.db.prisma.syncRecord.findUniqueOrThrow({
    where: { shop_kind_externalId: { shop: SHOP, kind, externalId: String(externalId) } },
  });

describe("orders and shipments", () => {
  it("imports a new order", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await settle();
    expect(await record("order", order.id)).toMatchObject({
      state: "imported",
      reason: null,
      workspaceId: "ws-acme",
      attempts: 1,
    });
    const state = await emulatorState(sync.emulator);
    expect(importCounts(state, "/api/v1/orders").get(String(order.id))).toBe(1);
    expect(state.orders[0].body).toEqual(mapOrder(order).ok && (mapOrder(order) as { request: unknown }).request);
  });

  it("records a repeated delivery once and imports once; the same content by another event is not sent again", async () => {
    const order = shopifyOrder();
    const first = await deliver("ORDERS_CREATE", order, "evt-dup");
    const again = await deliver("ORDERS_CREATE", order, "evt-dup");
    expect(first.duplicate).toBe(false);
    expect(again).toMatchObject({ duplicate: true, deliveryId: first.deliveryId });
    expect(await sync.db.prisma.job.count()).toBe(1);
    await settle();
    await deliver("ORDERS_UPDATED", { ...order, tags: "vip" }); // nothing the service sees changed
    await settle();
    const state = await emulatorState(sync.emulator);
    expect(state.requests.filter((r) => r.path === "/api/v1/orders")).toHaveLength(1);
    expect((await record("order", order.id)).state).toBe("imported");
  });

  it("sends a changed order again as an update", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await settle();
    const edited = {
      ...order,
      line_items: order.line_items.map((l, i) => (i === 1 ? { ...l, current_quantity: 0 } : l)),
    };
    await deliver("ORDERS_UPDATED", edited);
    await settle();
    const state = await emulatorState(sync.emulator);
    expect(importCounts(state, "/api/v1/orders").get(String(order.id))).toBe(2);
    expect(state.orders[0].status).toBe("updated");
    expect((state.orders[0].body as { lines: unknown[] }).lines).toHaveLength(1);
    expect(await record("order", order.id)).toMatchObject({ state: "updated", reason: null });
  });

  it("sends an order changed back to earlier content again, so the service ends with the latest content", async () => {
    const order = shopifyOrder();
    const edited = {
      ...order,
      line_items: order.line_items.map((l, i) => (i === 1 ? { ...l, current_quantity: 0 } : l)),
    };
    await deliver("ORDERS_CREATE", order);
    await settle();
    await deliver("ORDERS_UPDATED", edited); // a line removed …
    await settle();
    await deliver("ORDERS_UPDATED", { ...order, updated_at: "2026-11-20T11:00:00-05:00" }); // … and restored
    await settle();
    const state = await emulatorState(sync.emulator);
    expect((state.orders[0].body as { lines: unknown[] }).lines).toHaveLength(2);
    expect(importCounts(state, "/api/v1/orders").get(String(order.id))).toBe(3);
    await deliver("ORDERS_UPDATED", { ...edited, updated_at: "2026-11-20T12:00:00-05:00" }); // removed once more
    await settle();
    const after = await emulatorState(sync.emulator);
    expect((after.orders[0].body as { lines: unknown[] }).lines).toHaveLength(1);
    expect(importCounts(after, "/api/v1/orders").get(String(order.id))).toBe(4);
    expect(await record("order", order.id)).toMatchObject({ state: "updated", reason: null });
  });

  it("does not send an older version of an order that Shopify delivers late (after a newer one)", async () => {
    const order = shopifyOrder(); // updated_at 10:15:03
    await deliver("ORDERS_CREATE", order);
    await settle();
    const newest = {
      ...order,
      updated_at: "2026-11-20T10:40:00-05:00",
      line_items: order.line_items.map((l, i) => (i === 1 ? { ...l, current_quantity: 0 } : l)),
    };
    const older = {
      ...order,
      updated_at: "2026-11-20T10:30:00-05:00",
      line_items: order.line_items.map((l) => ({ ...l, current_quantity: 5 })),
    };
    await deliver("ORDERS_UPDATED", newest);
    await settle();
    await deliver("ORDERS_UPDATED", older); // a retried delivery of an earlier change, arriving last
    await settle();
    const state = await emulatorState(sync.emulator);
    expect(state.orders[0].body).toEqual((mapOrder(newest) as { request: unknown }).request);
    expect(importCounts(state, "/api/v1/orders").get(String(order.id))).toBe(2);
    expect(await record("order", order.id)).toMatchObject({ state: "updated", reason: null });
  });

  it("imports a fulfillment that arrived before its order after the order", async () => {
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    await drainJobs(sync.deps);
    expect(await record("shipment", fulfillment.id)).toMatchObject({
      state: "waiting",
      reason: "Waiting for its order to be imported first.",
      orderName: null,
    });
    await deliver("ORDERS_CREATE", order);
    await settle();
    // imported, and named after its order now that the order is known (the sync log shows and finds it by that name)
    expect(await record("shipment", fulfillment.id)).toMatchObject({ state: "imported", orderName: order.name });
    const state = await emulatorState(sync.emulator);
    const ok = state.requests.filter((r) => r.status === 201);
    expect(ok.map((r) => r.path)).toEqual(["/api/v1/orders", "/api/v1/shipments"]);
    expect(state.shipments[0].body).toMatchObject({
      external_shipment_id: String(fulfillment.id),
      external_order_id: String(order.id),
      carrier: "UPS",
      tracking_number: "1Z2345",
    });
  });

  it("retries a shipment the service answers order_not_found, never dropping it", async () => {
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    await deliver("ORDERS_CREATE", order);
    await settle();
    await injectFault(sync.emulator, {
      path: "/api/v1/shipments",
      status: 422,
      body: { error: "order_not_found" },
      times: 3,
    });
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    await settle(30);
    expect(await record("shipment", fulfillment.id)).toMatchObject({ state: "imported" });
    expect(importCounts(await emulatorState(sync.emulator), "/api/v1/shipments").get(String(fulfillment.id))).toBe(1);
  });

  it("backs off a shipment the service keeps answering order_not_found, more each time", async () => {
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    await deliver("ORDERS_CREATE", order);
    await settle();
    await injectFault(sync.emulator, {
      path: "/api/v1/shipments",
      status: 422,
      body: { error: "order_not_found" },
      times: 8,
    });
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const before = sync.clock.ms;
      await drainJobs(sync.deps);
      const job = await sync.db.prisma.job.findFirstOrThrow({ where: { kind: "shipment" } });
      expect(job.status).toBe("queued");
      delays.push(job.runAt.getTime() - before);
      sync.clock.ms = job.runAt.getTime() + 1;
    }
    expect(delays[7]).toBeGreaterThan(4 * delays[0]);
    expect(delays[7]).toBeGreaterThanOrEqual(60_000);
    await settle();
    expect(await record("shipment", fulfillment.id)).toMatchObject({ state: "imported" });
  });

  it("sends an order to the workspace its customer reconnected to before that order's shipment", async () => {
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    await deliver("ORDERS_CREATE", order);
    await settle();
    expect(await record("order", order.id)).toMatchObject({ state: "imported", workspaceId: "ws-acme" });
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER, "ws-globex"); // reconnected to another workspace
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    await settle();
    expect(await record("order", order.id)).toMatchObject({ workspaceId: "ws-globex" });
    expect(await record("shipment", fulfillment.id)).toMatchObject({ state: "imported", workspaceId: "ws-globex" });
    const state = await emulatorState(sync.emulator);
    expect(
      state.orders
        .filter((o) => o.external_id === String(order.id))
        .map((o) => o.workspace_id)
        .sort(),
    ).toEqual(["ws-acme", "ws-globex"]);
    expect(state.shipments.map((s) => s.workspace_id)).toEqual(["ws-globex"]);
  });

  it("imports everything exactly once through 500s, 429s and timeouts", async () => {
    await injectFault(sync.emulator, { path: "/api/v1/orders", status: 500, times: 3 });
    await injectFault(sync.emulator, {
      path: "/api/v1/orders",
      status: 429,
      headers: { "Retry-After": "7" },
      body: { error: "rate_limited" },
      times: 2,
    });
    await injectFault(sync.emulator, { path: "/api/v1/orders", delay_ms: 1_500, times: 2 }); // processed, answer too late
    await injectFault(sync.emulator, { path: "/api/v1/shipments", status: 503, delay_ms: 1_200, times: 2 }); // timeouts
    const orders = Array.from({ length: 6 }, () => shopifyOrder());
    for (const order of orders) {
      await deliver("ORDERS_CREATE", order);
      await deliver("FULFILLMENTS_CREATE", shopifyFulfillment(order));
    }
    await settle(40);
    const state = await emulatorState(sync.emulator);
    const orderCounts = importCounts(state, "/api/v1/orders");
    const shipmentCounts = importCounts(state, "/api/v1/shipments");
    for (const order of orders) expect(orderCounts.get(String(order.id))).toBe(1);
    expect([...shipmentCounts.values()]).toEqual([1, 1, 1, 1, 1, 1]);
    expect(state.orders).toHaveLength(6);
    expect(state.shipments).toHaveLength(6);
    const records = await sync.db.prisma.syncRecord.findMany();
    expect(records.every((r) => r.state === "imported")).toBe(true);
    // Retry-After was honoured: a 429'd job was not run again sooner than 7 s later.
    expect(state.requests.some((r) => r.status === 429)).toBe(true);
  }, 60_000);

  it("waits at least Retry-After before sending again after a 429", async () => {
    await injectFault(sync.emulator, {
      path: "/api/v1/orders",
      status: 429,
      headers: { "Retry-After": "120" },
      body: { error: "rate_limited" },
    });
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    const before = sync.clock.ms;
    await drainJobs(sync.deps);
    const job = await sync.db.prisma.job.findFirstOrThrow();
    expect(job).toMatchObject({ status: "queued", attempts: 1 });
    expect(job.runAt.getTime() - before).toBeGreaterThanOrEqual(120_000);
    const waiting = await record("order", order.id);
    expect(waiting.state).toBe("pending");
    expect(waiting.reason).toMatch(/limiting requests.*Will try again at \d\d:\d\d:\d\d UTC \(attempt 1 of 12\)/);
    sync.clock.advance(60_000);
    expect(await drainJobs(sync.deps)).toBe(0); // not yet
    await settle();
    expect(await record("order", order.id)).toMatchObject({ state: "imported", reason: null });
  });

  it("takes over a job whose worker died mid-import, and the service imports it once", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    const [job] = await leaseJobs(sync.db.prisma, { workerId: "doomed", leaseMs: 30_000, now: sync.clock.now() });
    // The doomed worker got as far as sending the request, then died before recording anything.
    const request = (mapOrder(order) as { request: unknown }).request;
    const key = idempotencyKey(SHOP, "order", String(order.id), contentHash(request));
    const sent = await sync.deps.importOrder(settingsFor(sync.emulator), sync.stores.get(CUSTOMER)!, request, {
      idempotencyKey: key,
    });
    expect(sent.ok).toBe(true);
    expect(await drainJobs(sync.deps)).toBe(0); // still leased
    sync.clock.advance(31_000);
    await settle();
    expect(await sync.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({
      status: "done",
      attempts: 2,
    });
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
    const state = await emulatorState(sync.emulator);
    expect(importCounts(state, "/api/v1/orders").get(String(order.id))).toBe(1);
    expect(state.requests.filter((r) => r.replayed).length).toBeGreaterThanOrEqual(1);
  });
});

describe("skip and failure reasons, one each", () => {
  it("skips an order without a customer", async () => {
    const order = shopifyOrder({ customer: null });
    await deliver("ORDERS_CREATE", order);
    await settle();
    expect(await record("order", order.id)).toMatchObject({
      state: "skipped",
      reason: "The order has no customer, so there is no workspace to import it into.",
    });
  });

  it("skips an order whose customer has not connected, and imports it when they connect", async () => {
    const order = shopifyOrder({ customer: { id: 7_000_000_999 } });
    const fulfillment = shopifyFulfillment(order);
    await deliver("ORDERS_CREATE", order);
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    await settle();
    expect(await record("order", order.id)).toMatchObject({ state: "skipped", customerId: "7000000999" });
    expect((await record("order", order.id)).reason).toMatch(/^Customer has not connected a workspace/);
    expect((await record("shipment", fulfillment.id)).reason).toMatch(
      /^Its order was not imported: Customer has not connected/,
    );
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, "7000000999", "ws-globex");
    const result = await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: "7000000999" },
      { backfill: false, now: sync.clock.now() },
    );
    expect(result.requeued).toBe(2);
    await settle();
    expect(await record("order", order.id)).toMatchObject({ state: "imported", workspaceId: "ws-globex" });
    expect(await record("shipment", fulfillment.id)).toMatchObject({ state: "imported" });
  });

  it("imports an order whose customer connects while its job is deciding it is not connected", async () => {
    const customerId = "7000000998";
    const order = shopifyOrder({ customer: { id: Number(customerId) } });
    await deliver("ORDERS_CREATE", order);
    let connected = false;
    // The customer finishes connecting (grant row, then onCustomerConnected) after the worker read "no grant" and
    // before it wrote the skip.
    const racing = new Proxy(sync.db.prisma, {
      get(target, prop) {
        if (prop === "$transaction" && !connected) {
          return async (...args: unknown[]) => {
            connected = true;
            await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, customerId, "ws-globex");
            await onCustomerConnected(
              sync.db.prisma,
              { shop: SHOP, customerId },
              { backfill: false, now: sync.clock.now() },
            );
            return (target.$transaction as (...a: unknown[]) => unknown)(...args);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    sync.deps = { ...sync.deps, prisma: racing };
    await settle();
    expect(connected).toBe(true);
    expect(await record("order", order.id)).toMatchObject({ state: "imported", workspaceId: "ws-globex" });
  });

  it("skips an order with nothing left to import (every line removed by edits)", async () => {
    const order = shopifyOrder();
    order.line_items = order.line_items.map((l) => ({ ...l, current_quantity: 0, fulfillable_quantity: 0 }));
    await deliver("ORDERS_CREATE", order);
    await settle();
    expect(await record("order", order.id)).toMatchObject({
      state: "skipped",
      reason: "Nothing left to import: every line of this order was removed.",
    });
    expect((await emulatorState(sync.emulator)).requests).toHaveLength(0);
  });

  it("fails an order over 500 lines without a crash loop", async () => {
    const order = shopifyOrder({}, 501);
    await deliver("ORDERS_CREATE", order);
    await settle();
    expect(await record("order", order.id)).toMatchObject({
      state: "failed",
      reason: "The order has 501 lines; the service accepts at most 500 lines per order.",
      attempts: 1,
    });
    expect(await sync.db.prisma.job.findFirstOrThrow({ where: { kind: "order" } })).toMatchObject({
      status: "failed",
      attempts: 1,
    });
  });

  it("fails an order the shared schema rejects, naming the field", async () => {
    const order = shopifyOrder({ currency: "DOLLARS" });
    await deliver("ORDERS_CREATE", order);
    await settle();
    expect(await record("order", order.id)).toMatchObject({
      state: "failed",
      reason: "The order cannot be sent as it is: currency: must be exactly 3 characters.",
    });
  });

  it("fails when the service refuses the data", async () => {
    await injectFault(sync.emulator, {
      path: "/api/v1/orders",
      status: 422,
      body: { error: "invalid_payload", message: "lines[0].title: too long" },
    });
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await settle();
    const r = await record("order", order.id);
    expect(r.state).toBe("failed");
    expect(r.reason).toMatch(/not accept.*lines\[0\]\.title: too long/);
    // Stored as data for the admin's language: the failure's kind and status, and the service's own words apart.
    expect(r.reasonDetails).toEqual({
      detail: expect.any(String),
      failure: { kind: "invalid_payload", status: 422, serviceMessage: "lines[0].title: too long" },
    });
    const [attempt] = await sync.db.prisma.syncAttempt.findMany({ where: { recordId: r.id } });
    expect(attempt.details).toEqual({ serviceMessage: "lines[0].title: too long" });
  });

  it("fails after the attempt budget when the service keeps failing", async () => {
    await injectFault(sync.emulator, { path: "/api/v1/orders", status: 500, times: 100 });
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await sync.db.prisma.job.updateMany({ data: { maxAttempts: 3 } });
    await settle();
    const r = await record("order", order.id);
    expect(r).toMatchObject({ state: "failed", attempts: 3 });
    expect(r.reason).toMatch(/^Gave up after 3 attempts\. The service had an internal problem \(HTTP 500\)/);
    expect(r.reasonDetails).toMatchObject({ attempts: 3, failure: { kind: "server_error", status: 500 } });
    expect(await sync.db.prisma.job.findFirstOrThrow({ where: { kind: "order" } })).toMatchObject({
      status: "failed",
      attempts: 3,
    });
  });

  it("waits for a reconnection without burning attempts when the grant needs reconnecting", async () => {
    await sync.db.prisma.customerGrant.update({
      where: { shop_customerId: { shop: SHOP, customerId: CUSTOMER } },
      data: { status: "needs_reconnect", statusReason: "the customer revoked access" },
    });
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await drainJobs(sync.deps);
    expect(await record("order", order.id)).toMatchObject({
      state: "waiting",
      reason:
        "The customer's workspace connection must be reconnected (the customer revoked access). Waiting for them to reconnect; nothing is lost.",
    });
    expect(await sync.db.prisma.job.findFirstOrThrow()).toMatchObject({ status: "queued", attempts: 0 });
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { backfill: false, now: sync.clock.now() },
    );
    await drainJobs(sync.deps);
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
  });

  it("runs every waiting job of an order when the customer reconnects, not only the latest (create and update)", async () => {
    await sync.db.prisma.customerGrant.update({
      where: { shop_customerId: { shop: SHOP, customerId: CUSTOMER } },
      data: { status: "needs_reconnect", statusReason: "the customer revoked access" },
    });
    const order = shopifyOrder();
    const edited = {
      ...order,
      line_items: order.line_items.map((l, i) => (i === 1 ? { ...l, current_quantity: 0 } : l)),
    };
    await deliver("ORDERS_CREATE", order);
    await drainJobs(sync.deps); // the create waits for the reconnection …
    await deliver("ORDERS_UPDATED", edited); // … and the update behind it
    await drainJobs(sync.deps);
    expect(await record("order", order.id)).toMatchObject({ state: "waiting" });
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    await onCustomerConnected(
      sync.db.prisma,
      { shop: SHOP, customerId: CUSTOMER },
      { backfill: false, now: sync.clock.now() },
    );
    await drainJobs(sync.deps); // at once, no clock moved
    expect(await record("order", order.id)).toMatchObject({ state: "updated" });
    const state = await emulatorState(sync.emulator);
    expect((state.orders[0].body as { lines: unknown[] }).lines).toHaveLength(1);
  });

  it("waits when the service settings are not set up", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await drainJobs({ ...sync.deps, loadSettings: async () => null });
    expect(await record("order", order.id)).toMatchObject({
      state: "waiting",
      reason: "The Merchant Integration Service is not set up for this shop yet (Settings).",
    });
    expect(await sync.db.prisma.job.findFirstOrThrow()).toMatchObject({ status: "queued", attempts: 0 });

    // Saving the settings wakes it at once: no clock moved, no 10-minute wait.
    expect(await onSettingsSaved(sync.db.prisma, SHOP, sync.clock.now())).toBe(1);
    await drainJobs(sync.deps);
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
  });

  it("skips a cancelled fulfillment", async () => {
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order, { status: "cancelled" });
    await deliver("FULFILLMENTS_UPDATE", fulfillment);
    await settle();
    expect(await record("shipment", fulfillment.id)).toMatchObject({
      state: "skipped",
      reason: "The fulfillment was cancelled in Shopify, so there is no shipment to import.",
    });
  });

  it("turns a crash in processing into retries, then a final failure with its reason", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await sync.db.prisma.job.updateMany({ data: { maxAttempts: 2 } });
    await settle.call(null, 10);
    const broken: SyncDeps = {
      ...sync.deps,
      loadSettings: async () => {
        throw new Error("settings key missing");
      },
    };
    await sync.db.prisma.job.updateMany({ data: { status: "queued", attempts: 0, runAt: sync.clock.now() } });
    await sync.db.prisma.syncRecord.updateMany({ data: { sentHash: null, state: "pending" } });
    for (let i = 0; i < 3; i++) {
      await drainJobs(broken);
      sync.clock.advance(60 * 60_000);
    }
    const job = await sync.db.prisma.job.findFirstOrThrow({ where: { kind: "order" } });
    expect(job).toMatchObject({ status: "failed", attempts: 2 });
    expect(job.lastError).toContain("settings key missing");
    expect((await record("order", order.id)).state).toBe("failed");
  });
});

describe("pause, resume and manual retry", () => {
  it("leaves a paused shop's work waiting and runs it on resume", async () => {
    await sync.db.prisma.shopSettings.create({ data: { shop: SHOP, syncPaused: true } });
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await settle();
    expect(await record("order", order.id)).toMatchObject({ state: "pending" });
    expect(await sync.db.prisma.job.findFirstOrThrow()).toMatchObject({ status: "queued", attempts: 0 });
    await sync.db.prisma.shopSettings.update({ where: { shop: SHOP }, data: { syncPaused: false } });
    await settle();
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
  });

  it("re-queues a failed import on Retry and imports it", async () => {
    await injectFault(sync.emulator, { path: "/api/v1/orders", status: 500, times: 2 });
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await sync.db.prisma.job.updateMany({ data: { maxAttempts: 2 } });
    await settle();
    const failed = await record("order", order.id);
    expect(failed.state).toBe("failed");
    expect(await retryRecordJob(sync.db.prisma, SHOP, failed.id, sync.clock.now())).toBe(true);
    await settle();
    expect(await record("order", order.id)).toMatchObject({ state: "imported", reason: null });
    expect(importCounts(await emulatorState(sync.emulator), "/api/v1/orders").get(String(order.id))).toBe(1);
  });
});

describe("worker loop", () => {
  it("runs in the background, wakes on notification, and stops after finishing its running jobs", async () => {
    const worker = startWorker(sync.deps, { pollMs: 60_000, concurrency: 2 });
    try {
      const order = shopifyOrder();
      await deliver("ORDERS_CREATE", order);
      notifyWorkers(); // what the webhook handler does; without it the next poll is a minute away
      const deadline = Date.now() + 10_000;
      while ((await record("order", order.id)).state !== "imported" && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect((await record("order", order.id)).state).toBe("imported");
    } finally {
      await worker.stop();
    }
    const later = shopifyOrder();
    await deliver("ORDERS_CREATE", later);
    notifyWorkers();
    await new Promise((r) => setTimeout(r, 200));
    expect((await record("order", later.id)).state).toBe("pending"); // stopped: nothing leased any more
  });

  it("keeps its other slots busy while one import is slow", async () => {
    const slow = shopifyOrder();
    const quick = [shopifyOrder(), shopifyOrder(), shopifyOrder()];
    // The slow order's send is held until the quick ones are imported: no timing involved.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding: SyncDeps = {
      ...sync.deps,
      importOrder: async (settings, store, request, options) => {
        if ((request as { external_order_id?: string }).external_order_id === String(slow.id)) await held;
        return sync.deps.importOrder(settings, store, request, options);
      },
    };
    const worker = startWorker(holding, { pollMs: 60_000, concurrency: 2 });
    const until = async (done: () => Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await done()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return done();
    };
    try {
      await deliver("ORDERS_CREATE", slow);
      notifyWorkers();
      const slowJob = async () =>
        (await sync.db.prisma.job.findFirst({ where: { recordId: (await record("order", slow.id)).id } }))?.status;
      expect(await until(async () => (await slowJob()) === "running")).toBe(true);

      for (const order of quick) await deliver("ORDERS_CREATE", order);
      notifyWorkers();
      // One after another through the free slot, while the slow one still waits at the service.
      const allQuick = async () =>
        (await Promise.all(quick.map((o) => record("order", o.id)))).every((r) => r.state === "imported");
      expect(await until(allQuick)).toBe(true);
      expect(await slowJob()).toBe("running");
    } finally {
      release();
      await worker.stop(); // finishes the slow one first
    }
    expect((await record("order", slow.id)).state).toBe("imported");
  });
});

describe("runJob", () => {
  it("ignores a job whose lease was taken over (fenced writes)", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    const [job] = await leaseJobs(sync.db.prisma, { workerId: "a", leaseMs: 1, now: sync.clock.now() });
    sync.clock.advance(10);
    await settle();
    await runJob(sync.deps, job); // the stale worker finishes late: the service replays, nothing is overwritten
    expect(await sync.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({
      status: "done",
      leasedBy: expect.not.stringMatching(/^a$/),
    });
    expect(importCounts(await emulatorState(sync.emulator), "/api/v1/orders").get(String(order.id))).toBe(1);
  });

  it("waking a skipped shipment after its order imports leaves alone a job another worker just leased", async () => {
    await injectFault(sync.emulator, {
      path: "/api/v1/orders",
      status: 422,
      body: { error: "invalid_payload", message: "lines[0].title: too long" },
    });
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    await deliver("ORDERS_CREATE", order);
    await settle();
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    await settle();
    expect((await record("shipment", fulfillment.id)).reason).toMatch(/^Its order was not imported/);
    const shipmentRecord = await record("shipment", fulfillment.id);
    const orderRecord = await record("order", order.id);
    expect(await retryRecordJob(sync.db.prisma, SHOP, orderRecord.id, sync.clock.now())).toBe(true);
    // Between the worker reading the shipment's job (done) and writing it, the merchant retries the shipment and
    // another worker leases it.
    let raced = false;
    const jobs = new Proxy(sync.db.prisma.job, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as (...a: unknown[]) => Promise<unknown>;
        if (prop !== "findFirst") return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          const found = (await value.apply(target, args)) as { kind?: string } | null;
          if (found?.kind === "shipment" && !raced) {
            raced = true;
            await retryRecordJob(sync.db.prisma, SHOP, shipmentRecord.id, sync.clock.now());
            expect(await leaseJobs(sync.db.prisma, { workerId: "other", now: sync.clock.now() })).toHaveLength(1);
          }
          return found;
        };
      },
    });
    const racing = new Proxy(sync.db.prisma, {
      get(target, prop) {
        if (prop === "job") return jobs;
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const [orderJob] = await leaseJobs(sync.db.prisma, { workerId: "w", now: sync.clock.now() });
    await runJob({ ...sync.deps, prisma: racing }, orderJob);
    expect(raced).toBe(true);
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
    expect(
      await sync.db.prisma.job.findFirstOrThrow({ where: { recordId: shipmentRecord.id }, orderBy: { seq: "desc" } }),
    ).toMatchObject({
      status: "running",
      leasedBy: "other",
    });
  });

  it("a worker whose lease was taken over cannot overwrite the record when its own request fails late", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    const [job] = await leaseJobs(sync.db.prisma, { workerId: "stale", leaseMs: 30_000, now: sync.clock.now() });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let sending!: () => void;
    const sent = new Promise<void>((resolve) => (sending = resolve));
    const late = failure("server_error", { status: 503 }, 1);
    const staleDeps: SyncDeps = {
      ...sync.deps,
      importOrder: async () => {
        sending();
        await gate; // hangs past its lease …
        return late; // … then its request fails
      },
    };
    const stale = runJob(staleDeps, job);
    await sent;
    sync.clock.advance(31_000);
    await settle(); // the successor imports it
    const successor = await record("order", order.id);
    expect(successor).toMatchObject({ state: "imported", reason: null });
    release();
    await stale;
    // Not even its attempt count or time: the record is the successor's as it left it.
    expect(await record("order", order.id)).toEqual(successor);
    expect(await sync.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ status: "done" });

    // The same for a failure that is final, and for one that waits for the customer.
    for (const kind of ["invalid_payload", "invalid_token"] as const) {
      const next = shopifyOrder();
      await deliver("ORDERS_CREATE", next);
      const [nextJob] = await leaseJobs(sync.db.prisma, {
        workerId: `stale-${kind}`,
        leaseMs: 30_000,
        now: sync.clock.now(),
      });
      const staleNow: SyncDeps = {
        ...sync.deps,
        importOrder: async () => {
          sync.clock.advance(31_000);
          await settle();
          return failure(kind, {}, 1);
        },
      };
      await runJob(staleNow, nextJob);
      expect(await record("order", next.id)).toMatchObject({ state: "imported", reason: null });
    }
  });
});

const REWORDED = "Words from another release that no code knows.";
const reword = (id: string) => sync.db.prisma.syncRecord.update({ where: { id }, data: { reason: REWORDED } });

// Records that wait (or were skipped) for something are found by their reason code, never by their words: a
// record whose message was reworded (here: replaced outright, as an older release's wording would be) is still
// woken when the thing it waits for happens.
describe("reason codes, not words, find the records to wake", () => {
  it("the database's enum and the words module list the same codes, each with words", () => {
    expect([...SYNC_REASON_CODES].sort()).toEqual(Object.values(SyncReasonCode).sort());
    for (const code of SYNC_REASON_CODES)
      expect(reasonText(code, { detail: "The service said no.", noun: "order" }).length).toBeGreaterThan(15);
  });

  it("saving the settings wakes an import waiting for them whatever its message says", async () => {
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await drainJobs({ ...sync.deps, loadSettings: async () => null });
    const waiting = await record("order", order.id);
    expect(waiting).toMatchObject({ state: "waiting", reasonCode: "settings_missing" });
    await reword(waiting.id);
    expect(await onSettingsSaved(sync.db.prisma, SHOP, sync.clock.now())).toBe(1);
    expect(await drainJobs(sync.deps)).toBe(1);
    expect(await record("order", order.id)).toMatchObject({ state: "imported", reasonCode: null, reason: null });
  });

  it("an order imported at last wakes its shipment skipped for it whatever the shipment's message says", async () => {
    await injectFault(sync.emulator, {
      path: "/api/v1/orders",
      status: 422,
      body: { error: "invalid_payload", message: "lines[0].title: too long" },
    });
    const order = shopifyOrder();
    const fulfillment = shopifyFulfillment(order);
    await deliver("ORDERS_CREATE", order);
    await drainJobs(sync.deps);
    await deliver("FULFILLMENTS_CREATE", fulfillment);
    await drainJobs(sync.deps);
    const skipped = await record("shipment", fulfillment.id);
    expect(skipped).toMatchObject({ state: "skipped", reasonCode: "order_not_imported" });
    await reword(skipped.id);
    expect(await retryRecordJob(sync.db.prisma, SHOP, (await record("order", order.id)).id, sync.clock.now())).toBe(
      true,
    );
    await drainJobs(sync.deps);
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
    expect(await record("shipment", fulfillment.id)).toMatchObject({ state: "imported", reasonCode: null });
  });

  it("a reconnection wakes an import waiting for it whatever its message says", async () => {
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER, "ws-acme", "needs_reconnect");
    const order = shopifyOrder();
    await deliver("ORDERS_CREATE", order);
    await drainJobs(sync.deps);
    const waiting = await record("order", order.id);
    expect(waiting).toMatchObject({ state: "waiting", reasonCode: "needs_reconnect" });
    await reword(waiting.id);
    await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
    expect(
      await onCustomerConnected(
        sync.db.prisma,
        { shop: SHOP, customerId: CUSTOMER },
        { now: sync.clock.now(), backfill: false },
      ),
    ).toMatchObject({
      requeued: 1,
    });
    expect(await drainJobs(sync.deps)).toBe(1);
    expect(await record("order", order.id)).toMatchObject({ state: "imported" });
  });
});
