// The order page block's backend (/api/order-block) over HTTP on the app's build: Shopify admin session tokens
// (Bearer, signed like Shopify's), CORS on every answer including refusals, another shop's order answers unknown,
// and the actions are safe from cross-site requests (token only, cookies never count, JSON only).
import { beforeEach, describe, expect, it } from "vitest";
import type { GrantStore } from "~/service/client.server";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { drainJobs, type SyncDeps } from "~/sync/job-runner.server";
import { withHarness } from "../helpers/harness";
import { mintSessionToken, TEST_SHOP } from "../helpers/shopify";
import { emulatorState, injectFault, resetEmulator } from "../helpers/emulator";
import { dataPath, readData } from "../helpers/route-data";
import {
  clearSyncTables,
  connectCustomer,
  importCounts,
  newId,
  shopifyFulfillment,
  shopifyOrder,
  syncDeps,
} from "../sync/support";

const h = withHarness({ app: {}, emulator: "sync" });
const ORIGIN = "https://extensions.shopifycdn.com";
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const CUSTOMER = "7000000001";

let stores: Map<string, GrantStore>;
let deps: SyncDeps;

beforeEach(async () => {
  await clearSyncTables(h.db.prisma);
  await resetEmulator(h.emulator);
  stores = new Map();
  deps = syncDeps(h.db.prisma, h.emulator, stores);
  await connectCustomer(h.db.prisma, h.emulator, stores, CUSTOMER);
});

const deliver = (topic: string, payload: unknown, shop = TEST_SHOP) =>
  recordSyncDelivery(h.db.prisma, { shop, topic, eventId: `evt-${newId()}`, payload });

/** An order the service refused (a failed import) with one shipment waiting behind it. */
async function failedOrder() {
  const order = shopifyOrder();
  await injectFault(h.emulator, {
    path: "/api/v1/orders",
    status: 422,
    body: { error: "invalid_payload", message: "lines[0].title: too long" },
  });
  await deliver("ORDERS_CREATE", order);
  await drainJobs(deps);
  await deliver("FULFILLMENTS_CREATE", shopifyFulfillment(order));
  await drainJobs(deps);
  return order;
}

async function call(
  order: string | number,
  init: { token?: string | null; method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const token = init.token === undefined ? await mintSessionToken() : init.token;
  const headers: Record<string, string> = { Origin: ORIGIN, "User-Agent": CHROME, ...init.headers };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["Content-Type"] ??= "application/json";
  const url = `${h.app.url}/api/order-block?order=${encodeURIComponent(typeof order === "number" ? `gid://shopify/Order/${order}` : order)}`;
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
    redirect: "manual",
  });
  return { response, text: await response.text() };
}

describe("order page block backend", () => {
  it("shows the order import and its shipment with state, time, reason, workspace and a link to the record", async () => {
    const order = await failedOrder();
    const { response, text } = await call(order.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const body = JSON.parse(text);
    expect(body).toMatchObject({ status: "ok", paused: false });
    expect(body.order).toMatchObject({
      kind: "order",
      externalId: String(order.id),
      state: "failed",
      reasonCode: "rejected",
      canRetry: true,
      canResolve: true,
    });
    expect(body.order.reason).toMatch(/lines\[0\]\.title: too long/);
    expect(body.order.path).toBe(`/app/log/${body.order.id}`);
    expect(Date.parse(body.order.at)).not.toBeNaN();
    expect(body.shipments).toHaveLength(1);
    expect(body.shipments[0]).toMatchObject({ kind: "shipment", canRetry: true });
    expect(text).not.toContain("ada@example.com");
  });

  it("answers 401 with CORS headers to a missing or forged token, and the preflight with 204", async () => {
    const order = await failedOrder();
    for (const token of [null, await mintSessionToken(TEST_SHOP, { secret: "not-the-app-secret" }), "garbage"]) {
      const { response, text } = await call(order.id, { token });
      expect(response.status).toBe(401);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(text).not.toContain(String(order.id));
    }
    const preflight = await fetch(`${h.app.url}/api/order-block?order=1`, {
      method: "OPTIONS",
      headers: {
        Origin: ORIGIN,
        "User-Agent": CHROME,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
  });

  it("answers unknown for another shop's order, and never acts on it", async () => {
    const other = shopifyOrder();
    await deliver("ORDERS_CREATE", other, "other-shop.myshopify.com");
    const record = await h.db.prisma.syncRecord.findFirstOrThrow({ where: { shop: "other-shop.myshopify.com" } });
    const { text } = await call(other.id);
    expect(JSON.parse(text)).toEqual({ status: "unknown", paused: false });
    const action = await call(other.id, { body: { intent: "resolve", recordId: record.id } });
    expect(action.response.status).toBe(404);
    expect(await h.db.prisma.syncRecord.findUniqueOrThrow({ where: { id: record.id } })).toMatchObject({
      resolvedAt: null,
    });
  });

  it("says when the customer has no workspace, and when the sync is paused", async () => {
    const order = shopifyOrder({ customer: { id: 7_000_000_999 } });
    await deliver("ORDERS_CREATE", order);
    await drainJobs(deps);
    await h.db.prisma.shopSettings.create({ data: { shop: TEST_SHOP, syncPaused: true } });
    const body = JSON.parse((await call(order.id)).text);
    expect(body).toMatchObject({
      status: "no_workspace",
      paused: true,
      order: { state: "skipped", reasonCode: "not_connected" },
    });
  });

  it("retries only with the token (cookies never count, JSON only) and reaches the service once", async () => {
    const order = await failedOrder();
    const { order: record } = JSON.parse((await call(order.id)).text);

    // A cross-site form post rides on cookies, not tokens: refused, nothing queued.
    const forged = await call(order.id, {
      token: null,
      body: `intent=retry&recordId=${record.id}`,
      headers: { Cookie: "shopify_app_session=x", "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(forged.response.status).toBe(401);
    const simple = await call(order.id, {
      body: `{"intent":"retry","recordId":"${record.id}"}`,
      headers: { "Content-Type": "text/plain" },
    });
    expect(simple.response.status).toBe(415);
    expect(
      await h.db.prisma.job.findFirstOrThrow({ where: { recordId: record.id }, orderBy: { seq: "desc" } }),
    ).toMatchObject({ status: "failed" });

    const retried = await call(order.id, { body: { intent: "retry", recordId: record.id } });
    expect(retried.response.status).toBe(200);
    expect(retried.response.headers.get("access-control-allow-origin")).toBe("*");
    expect(JSON.parse(retried.text)).toMatchObject({ ok: true, message: expect.stringMatching(/^Queued again/) });
    await drainJobs(deps);
    const again = await call(order.id, { body: { intent: "retry", recordId: record.id } });
    expect(JSON.parse(again.text)).toMatchObject({ ok: true, message: expect.stringMatching(/^Already imported/) });
    await drainJobs(deps);
    expect(importCounts(await emulatorState(h.emulator), "/api/v1/orders").get(String(order.id))).toBe(1);
    expect(JSON.parse((await call(order.id)).text).order).toMatchObject({
      state: "imported",
      canRetry: false,
      workspaceId: "ws-acme",
    });
  });

  it("marks a failure resolved, and refuses unknown actions and records of other orders", async () => {
    const order = await failedOrder();
    const { order: record } = JSON.parse((await call(order.id)).text);
    const resolved = await call(order.id, { body: { intent: "resolve", recordId: record.id } });
    expect(JSON.parse(resolved.text)).toMatchObject({ ok: true, message: "1 import marked as resolved." });
    expect(JSON.parse((await call(order.id)).text).order).toMatchObject({
      resolved: true,
      canResolve: false,
      canRetry: true,
    });
    expect((await call(order.id, { body: { intent: "delete", recordId: record.id } })).response.status).toBe(400);
    expect((await call(order.id + 1, { body: { intent: "retry", recordId: record.id } })).response.status).toBe(404);
    expect((await call("not-an-order")).response.status).toBe(400);
  });

  it("Settings → Shopify Flow switches the trigger off and on again (an unticked box sends nothing)", async () => {
    const settings = (fields: Record<string, string>) =>
      mintSessionToken().then((token) =>
        fetch(`${h.app.url}${dataPath("/app/settings", "routes/app.settings")}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "User-Agent": CHROME },
          body: new URLSearchParams(fields),
          redirect: "manual",
        }),
      );
    expect(await readData(await settings({ intent: "flow" }))).toMatchObject({ intent: "flow", enabled: false });
    expect(await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: TEST_SHOP } })).toMatchObject({
      flowTriggerEnabled: false,
    });
    expect(await readData(await settings({ intent: "flow", flowTriggerEnabled: "on" }))).toMatchObject({
      enabled: true,
    });
    expect(await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: TEST_SHOP } })).toMatchObject({
      flowTriggerEnabled: true,
    });
  });
});
