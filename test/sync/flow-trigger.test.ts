// The Shopify Flow trigger "Order import needs attention": the worker sends `flowTriggerReceive` through Shopify's
// Admin API client (MSW stands in for Shopify) once per failure episode, with the fields the extension declares,
// never buyer contact data; the merchant's switch; a Flow call that fails is retried and holds back no import.
import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { graphql, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { parse } from "smol-toml";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { retryRecord } from "~/admin/log-actions.server";
import { redactCustomer } from "~/privacy/compliance.server";
import { drainJobs } from "~/sync/job-runner.server";
import { flowPayload } from "~/sync/flow-trigger.server";
import { TEST_OFFLINE_TOKEN } from "../helpers/shopify";
import { injectFault } from "../helpers/emulator";
import { connectCustomer, newId, SHOP, shopifyOrder } from "./support";
import { withSyncHarness } from "../helpers/sync-harness";

const admin = graphql.link(`https://${SHOP}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`);
const mock = setupServer();
const CUSTOMER = "7000000001";

interface FlowCall {
  handle: unknown;
  payload: Record<string, unknown>;
}

/** Answers FlowTriggerReceive like Shopify (failing the first `failFirst` calls with HTTP 503) and records each call. */
function serveFlow(calls: FlowCall[], failFirst = 0) {
  let failures = failFirst;
  mock.use(
    admin.mutation("FlowTriggerReceive", ({ variables, request }) => {
      expect(request.headers.get("X-Shopify-Access-Token")).toBe(TEST_OFFLINE_TOKEN);
      if (failures > 0) {
        failures -= 1;
        return HttpResponse.json({ errors: [{ message: "Service unavailable" }] }, { status: 503 });
      }
      calls.push({ handle: variables.handle, payload: variables.payload as Record<string, unknown> });
      return HttpResponse.json({ data: { flowTriggerReceive: { userErrors: [] } } });
    }),
  );
}

const sync = withSyncHarness({ shopify: mock });
beforeEach(async () => {
  await connectCustomer(sync.db.prisma, sync.emulator, sync.stores, CUSTOMER);
});

async function deliver(payload: unknown) {
  return recordSyncDelivery(sync.db.prisma, { shop: SHOP, topic: "ORDERS_CREATE", eventId: `evt-${newId()}`, payload });
}

/** Runs the worker until nothing is due (or `until` holds), moving the clock past backoffs. */
const settle = (rounds = 40, until?: () => Promise<boolean>) => sync.settle(rounds, { until, maxRounds: 1 });

const orderRecord = (id: number) =>
  sync.db.prisma.syncRecord.findUniqueOrThrow({
    where: { shop_kind_externalId: { shop: SHOP, kind: "order", externalId: String(id) } },
  });

/** An order whose import fails after its retries: the service answers 500 every time, 3 attempts. */
async function failingOrder() {
  const order = shopifyOrder();
  await injectFault(sync.emulator, { path: "/api/v1/orders", status: 500, times: 3 });
  await deliver(order);
  await sync.db.prisma.job.updateMany({ where: { kind: "order" }, data: { maxAttempts: 3 } });
  return order;
}

describe("Shopify Flow trigger: Order import needs attention", () => {
  it("declares the trigger with the fields the app sends", () => {
    const toml = parse(readFileSync("extensions/order-import-flow-trigger/shopify.extension.toml", "utf8")) as {
      extensions: { type: string; handle: string; name: string }[];
      settings: { fields: { type: string; key?: string }[] };
    };
    expect(toml.extensions[0]).toMatchObject({
      type: "flow_trigger",
      handle: "order-import-needs-attention",
      name: "Order import needs attention",
    });
    expect(toml.settings.fields.map((f) => f.key ?? f.type)).toEqual([
      "order_reference",
      "customer_reference",
      "Order name",
      "Import kind",
      "Reason code",
      "Reason",
    ]);
  });

  it("carries order and customer ids exactly, as strings, above 2^53 too", () => {
    const payload = flowPayload({
      kind: "order",
      orderId: "820982911946154508",
      orderName: "#1001",
      customerId: "9007199254740993",
      reasonCode: "rejected",
      reason: "bad",
    });
    expect(payload).toMatchObject({ order_id: "820982911946154508", customer_id: "9007199254740993" });
  });

  it("sends exactly one trigger for a record that fails after its retries, with the declared fields and no contact data", async () => {
    const calls: FlowCall[] = [];
    serveFlow(calls);
    const order = await failingOrder();
    await settle();
    const record = await orderRecord(order.id);
    expect(record).toMatchObject({ state: "failed", reasonCode: "attempts_exhausted", attempts: 3 });
    expect(calls).toHaveLength(1);
    expect(calls[0].handle).toBe("order-import-needs-attention");
    expect(calls[0].payload).toEqual({
      order_id: String(order.id),
      customer_id: CUSTOMER,
      "Order name": order.name,
      "Import kind": "order",
      "Reason code": "attempts_exhausted",
      Reason: record.reason,
    });
    const text = JSON.stringify(calls[0].payload);
    for (const contact of ["ada@example.com", "Ada", "Lovelace"]) expect(text).not.toContain(contact);

    // A merchant's retry that fails again is the same episode: nothing more.
    await injectFault(sync.emulator, {
      path: "/api/v1/orders",
      status: 422,
      body: { error: "invalid_payload", message: "bad line" },
    });
    expect((await retryRecord(sync.db.prisma, SHOP, record.id, sync.clock.now())).ok).toBe(true);
    await settle();
    expect(await orderRecord(order.id)).toMatchObject({ state: "failed", reasonCode: "rejected" });
    expect(calls).toHaveLength(1);
  });

  it("sends one more when the record recovered and fails again later", async () => {
    const calls: FlowCall[] = [];
    serveFlow(calls);
    const order = await failingOrder();
    await settle();
    expect(calls).toHaveLength(1);
    const { id } = await orderRecord(order.id);
    await retryRecord(sync.db.prisma, SHOP, id, sync.clock.now()); // the service is fine again
    await settle();
    expect(await orderRecord(order.id)).toMatchObject({ state: "imported", flowNotifiedAt: null });
    expect(calls).toHaveLength(1);

    // The order changes and this time the service refuses it: a new episode.
    await injectFault(sync.emulator, {
      path: "/api/v1/orders",
      status: 422,
      body: { error: "invalid_payload", message: "bad line" },
    });
    await deliver({
      ...order,
      updated_at: "2026-11-20T11:00:00-05:00",
      note: "changed",
      line_items: order.line_items.slice(0, 1),
    });
    await settle();
    expect(await orderRecord(order.id)).toMatchObject({ state: "failed", reasonCode: "rejected" });
    expect(calls).toHaveLength(2);
    expect(calls[1].payload).toMatchObject({ order_id: String(order.id), "Reason code": "rejected" });
  });

  it("sends nothing when the merchant switched the trigger off", async () => {
    const calls: FlowCall[] = [];
    serveFlow(calls);
    await sync.db.prisma.shopSettings.create({ data: { shop: SHOP, flowTriggerEnabled: false } });
    const order = await failingOrder();
    await settle();
    expect(await orderRecord(order.id)).toMatchObject({ state: "failed" });
    expect(calls).toHaveLength(0);
    expect(await sync.db.prisma.job.count({ where: { kind: "flow_trigger" } })).toBe(0);
  });

  it("retries a Flow call that failed, and the sync goes on meanwhile", async () => {
    const calls: FlowCall[] = [];
    serveFlow(calls, 2);
    const order = await failingOrder();
    const flowJob = () => sync.db.prisma.job.findFirst({ where: { kind: "flow_trigger" } });
    // The order fails; its trigger is tried, refused (503) and put back for later.
    await settle(40, async () => ((await flowJob())?.attempts ?? 0) >= 1);
    expect(await flowJob()).toMatchObject({ status: "queued", attempts: 1, orderKey: null, recordId: null });
    expect((await flowJob())!.runAt.getTime()).toBeGreaterThan(sync.clock.ms);
    // Another order of the same shop imports at once, while the trigger waits for its next try.
    const other = shopifyOrder();
    await deliver(other);
    await drainJobs(sync.deps);
    expect(await orderRecord(other.id)).toMatchObject({ state: "imported" });
    expect(calls).toHaveLength(0);
    await settle();
    expect(calls).toHaveLength(1);
    expect(calls[0].payload).toMatchObject({ order_id: String(order.id) });
    expect(await flowJob()).toMatchObject({ status: "done", attempts: 3 });
  });

  it("never sends a trigger about a customer whose data was erased (customers/redact) meanwhile", async () => {
    const calls: FlowCall[] = [];
    serveFlow(calls, 1);
    const order = await failingOrder();
    const flowJob = () => sync.db.prisma.job.findFirst({ where: { kind: "flow_trigger" } });
    await settle(40, async () => ((await flowJob())?.attempts ?? 0) >= 1); // refused once, waiting for its next try
    await redactCustomer(sync.db.prisma, { shop: SHOP, customerId: CUSTOMER, ordersToRedact: [String(order.id)] });
    expect(await flowJob()).toMatchObject({ status: "cancelled", payload: {} });
    await settle();
    expect(calls).toHaveLength(0);
  });
});
