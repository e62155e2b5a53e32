// Orders and shipments against the emulator over real HTTP: bearer tokens from a real consent flow, refresh
// before expiry and on 401, rotation saved, needs-reconnect, retries with faults from /_emulator/faults.
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator/server";
import {
  importOrder,
  importShipment,
  refreshTokens,
  revokeToken,
  type GrantStore,
  type ServiceSettings,
  serviceOrigins,
} from "~/service/client.server";
import { realSleep } from "~/lib/sleep";
import { connectWorkspace, emulatorSettings } from "../helpers/emulator-oauth";
import { fakeTime, ORDER, recordingFetch } from "./support";
import { emulatorState, injectFault, resetEmulator } from "../helpers/emulator";

let emu: Awaited<ReturnType<typeof startEmulator>>;
let settings: ServiceSettings;
const ORDERS = "/api/v1/orders";

beforeAll(async () => {
  emu = await startEmulator();
  settings = emulatorSettings(emu.url);
});
afterAll(() => emu.close());
beforeEach(() => resetEmulator(emu.url));

async function connectedStore(scopes?: string[], expiresAt?: Date) {
  const c = await connectWorkspace(emu.url, { scopes });
  const store = new MemoryGrantStore({
    workspaceId: c.workspaceId,
    accessToken: c.accessToken,
    accessTokenExpiresAt: expiresAt ?? c.accessTokenExpiresAt,
    refreshToken: c.refreshToken,
    scopes: c.scopes,
    boundOrigins: serviceOrigins(settings),
  });
  return { c, store };
}

/** Fake time starting now (recorded sleeps, no real waiting), fixed jitter. */
function fast(extra: Record<string, unknown> = {}) {
  const time = fakeTime(Date.now());
  return { time, deps: { now: time.now, sleep: time.sleep, random: () => 0.5, ...extra } };
}

const SHIPMENT = {
  external_shipment_id: "ship-1",
  external_order_id: ORDER.external_order_id,
  shipped_at: "2026-11-02T09:00:00Z",
  carrier: "DHL",
  lines: [{ external_order_line_id: "line-1", quantity: 1 }],
};

describe("imports against the emulator", () => {
  it("imports an order; the same key again is a replay; a new key updates", async () => {
    const { store } = await connectedStore();
    const first = await importOrder(settings, store, ORDER, { idempotencyKey: "order-1001-v1", deps: fast().deps });
    expect(first).toMatchObject({
      ok: true,
      status: 201,
      replayed: false,
      data: { status: "imported", external_id: "order-1001" },
    });
    const replay = await importOrder(settings, store, ORDER, { idempotencyKey: "order-1001-v1", deps: fast().deps });
    expect(replay).toMatchObject({ ok: true, replayed: true });
    const update = await importOrder(settings, store, ORDER, { idempotencyKey: "order-1001-v2", deps: fast().deps });
    expect(update).toMatchObject({ ok: true, replayed: false, data: { status: "updated" } });
    expect((await emulatorState(emu.url)).orders).toHaveLength(1);
    expect(store.lastUsedAt).not.toBeNull();

    const shipment = await importShipment(settings, store, SHIPMENT, { idempotencyKey: "ship-1", deps: fast().deps });
    expect(shipment).toMatchObject({ ok: true, data: { status: "imported", external_id: "ship-1" } });
  });

  it("a shipment for an order the service does not have is order_not_found", async () => {
    const { store } = await connectedStore();
    const out = await importShipment(settings, store, SHIPMENT, { idempotencyKey: "ship-nf", deps: fast().deps });
    expect(out).toMatchObject({ ok: false, kind: "order_not_found", retryable: false, status: 422, attempts: 1 });
  });

  it("a shipment line that is not a line of the order is the service's invalid_payload", async () => {
    const { store } = await connectedStore();
    await importOrder(settings, store, ORDER, { idempotencyKey: "o-1", deps: fast().deps });
    const bad = { ...SHIPMENT, lines: [{ external_order_line_id: "no-such-line", quantity: 1 }] };
    const out = await importShipment(settings, store, bad, { idempotencyKey: "ship-bad", deps: fast().deps });
    expect(out).toMatchObject({ ok: false, kind: "invalid_payload", retryable: false, status: 422 });
  });

  it("a grant without shipments:write gets insufficient_scope, not retried", async () => {
    const { store } = await connectedStore(["orders:write"]);
    expect((await importOrder(settings, store, ORDER, { idempotencyKey: "o-2", deps: fast().deps })).ok).toBe(true);
    const out = await importShipment(settings, store, SHIPMENT, { idempotencyKey: "ship-scope", deps: fast().deps });
    expect(out).toMatchObject({ ok: false, kind: "insufficient_scope", retryable: false, status: 403, attempts: 1 });
    expect(out.ok || out.message).toContain("shipments:write");
  });

  it("500s then success: one order stored, the same key each time", async () => {
    const { store } = await connectedStore();
    await injectFault(emu.url, { path: ORDERS, status: 500, times: 2, body: "<html>oops</html>" });
    const { time, deps } = fast();
    const out = await importOrder(settings, store, ORDER, { idempotencyKey: "order-500", deps });
    expect(out).toMatchObject({ ok: true, attempts: 3 });
    expect(time.sleeps).toEqual([500, 1000]);
    const state = await emulatorState(emu.url);
    expect(state.orders).toHaveLength(1);
    expect(state.requests.map((r) => [r.idempotency_key, r.status])).toEqual([
      ["order-500", 500],
      ["order-500", 500],
      ["order-500", 201],
    ]);
  });

  it("429 with Retry-After: 2 asks for a 2 s wait (injected clock) before retrying", async () => {
    const { store } = await connectedStore();
    await injectFault(emu.url, {
      path: ORDERS,
      status: 429,
      body: { error: "rate_limited" },
      headers: { "retry-after": "2" },
    });
    const { time, deps } = fast();
    const before = time.now();
    const out = await importOrder(settings, store, ORDER, { idempotencyKey: "order-429", deps });
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(time.sleeps).toEqual([2000]);
    expect(time.now() - before).toBeGreaterThanOrEqual(2000);
  });

  it("a timeout is retried with the same key: two requests in the log, one order", async () => {
    const { store } = await connectedStore();
    await injectFault(emu.url, { path: ORDERS, delay_ms: 400 });
    const out = await importOrder(settings, store, ORDER, {
      idempotencyKey: "order-timeout",
      deps: { timeoutMs: 150, random: () => 0.8 }, // real sleep: ~800 ms, after the slow first request finished
    });
    expect(out).toMatchObject({ ok: true, replayed: true, attempts: 2 });
    const state = await emulatorState(emu.url);
    expect(state.requests.filter((r) => r.idempotency_key === "order-timeout")).toHaveLength(2);
    expect(state.orders).toHaveLength(1);
  });

  it("after a timeout, a 409 on our own key means 'still in flight': waited out, then replayed", async () => {
    const { store } = await connectedStore();
    await injectFault(emu.url, { path: ORDERS, delay_ms: 900 });
    const slept: number[] = [];
    const out = await importOrder(settings, store, ORDER, {
      idempotencyKey: "order-inflight",
      deps: { timeoutMs: 150, random: () => 0.3, sleep: (ms, s) => (slept.push(ms), realSleep(ms, s)) },
    });
    expect(out).toMatchObject({ ok: true, replayed: true });
    const log = (await emulatorState(emu.url)).requests.map((r) => [r.status, r.error]);
    expect(log).toContainEqual([409, "idempotency_conflict"]);
    expect(log.at(-1)).toEqual([201, null]);
    expect((await emulatorState(emu.url)).orders).toHaveLength(1);
  });

  it("an idempotency conflict (same key, other body) is final and not retried", async () => {
    const { store } = await connectedStore();
    await importOrder(settings, store, ORDER, { idempotencyKey: "order-c", deps: fast().deps });
    const { time, deps } = fast();
    const out = await importOrder(settings, store, { ...ORDER, currency: "USD" }, { idempotencyKey: "order-c", deps });
    expect(out).toMatchObject({ ok: false, kind: "idempotency_conflict", retryable: false, attempts: 1 });
    expect(time.sleeps).toEqual([]);
    expect((await emulatorState(emu.url)).requests.map((r) => r.status)).toEqual([201, 409]);
  });

  it("a service that cannot be reached is a network_error", async () => {
    const { store } = await connectedStore();
    const gone = await startEmulator();
    await gone.close();
    const unreachable = { ...settings, sandboxBaseUrl: gone.url };
    store.grant!.boundOrigins = serviceOrigins(unreachable); // issued there, then it went away
    const out = await importOrder(unreachable, store, ORDER, {
      idempotencyKey: "o-net",
      deps: fast({ retry: { maxAttempts: 2 } }).deps,
    });
    expect(out).toMatchObject({ ok: false, kind: "network_error", retryable: true, attempts: 2 });
  });
});

describe("tokens against the emulator", () => {
  it("refreshes before expiry and saves the rotated refresh token atomically with the grant", async () => {
    const soon = new Date(Date.now() + 30_000); // inside the 60 s refresh window
    const { c, store } = await connectedStore(undefined, soon);
    const rec = recordingFetch();
    const out = await importOrder(settings, store, ORDER, {
      idempotencyKey: "o-exp",
      deps: fast({ fetch: rec.fetch }).deps,
    });
    expect(out).toMatchObject({ ok: true, attempts: 1 });
    expect(rec.sent.map((s) => new URL(s.url).pathname)).toEqual(["/oauth/token", ORDERS]);
    const g = store.grant!;
    expect(g.tokenVersion).toBe(1);
    expect(g.accessToken).not.toBe(c.accessToken);
    expect(g.refreshToken).not.toBe(c.refreshToken);
    expect(g.accessTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3000_000);
    expect(rec.sent[1].headers.get("authorization")).toBe(`Bearer ${g.accessToken}`);
    // The old refresh token was used up by the rotation.
    expect(await refreshTokens(settings, c.refreshToken)).toMatchObject({ ok: false, kind: "invalid_grant" });
  });

  it("refreshes once on 401 invalid_token, then resends with the same key", async () => {
    const { c, store } = await connectedStore();
    expect(await revokeToken(settings, c.accessToken, { tokenTypeHint: "access_token" })).toEqual({
      ok: true,
      value: undefined,
    });
    const rec = recordingFetch();
    const out = await importOrder(settings, store, ORDER, {
      idempotencyKey: "o-401",
      deps: fast({ fetch: rec.fetch }).deps,
    });
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(rec.sent.map((s) => new URL(s.url).pathname)).toEqual([ORDERS, "/oauth/token", ORDERS]);
    expect(rec.sent[2].headers.get("idempotency-key")).toBe("o-401");
    expect(store.grant).toMatchObject({ tokenVersion: 1, status: "active" });
    expect(store.grant!.refreshToken).not.toBe(c.refreshToken);
    const log = (await emulatorState(emu.url)).requests.map((r) => [r.status, r.error]);
    expect(log).toEqual([
      [401, "invalid_token"],
      [201, null],
    ]);
  });

  it("a 401 that survives a refresh is invalid_token (final), refreshed only once", async () => {
    const { store } = await connectedStore();
    await injectFault(emu.url, { path: ORDERS, status: 401, body: { error: "invalid_token" }, times: 5 });
    const rec = recordingFetch();
    const out = await importOrder(settings, store, ORDER, {
      idempotencyKey: "o-401x2",
      deps: fast({ fetch: rec.fetch }).deps,
    });
    expect(out).toMatchObject({ ok: false, kind: "invalid_token", retryable: false, attempts: 2 });
    expect(rec.sent.filter((s) => s.url.endsWith("/oauth/token"))).toHaveLength(1);
  });

  it("a failed refresh marks the grant needs-reconnect; later calls send nothing", async () => {
    const { c, store } = await connectedStore();
    await revokeToken(settings, c.refreshToken, { tokenTypeHint: "refresh_token" }); // ends the whole authorization
    const out = await importOrder(settings, store, ORDER, { idempotencyKey: "o-dead", deps: fast().deps });
    expect(out).toMatchObject({ ok: false, kind: "reconnect_required", retryable: false });
    expect(out.ok || out.message).toMatch(/must be reconnected/);
    expect(store.grant).toMatchObject({ status: "needs_reconnect", tokenVersion: 0 });
    expect(store.grant!.statusReason).toMatch(/customer must reconnect/);

    const rec = recordingFetch();
    const later = await importOrder(settings, store, ORDER, {
      idempotencyKey: "o-dead-2",
      deps: fast({ fetch: rec.fetch }).deps,
    });
    expect(later).toMatchObject({ ok: false, kind: "reconnect_required", attempts: 0 });
    expect(rec.sent).toHaveLength(0);
  });

  it("concurrent imports with an expiring token refresh once (single flight + lock)", async () => {
    const { store } = await connectedStore(undefined, new Date(Date.now() + 10_000));
    // Two "processes": separate store objects over the same row, sharing its lock.
    const other: GrantStore = {
      load: () => store.load(),
      saveRefreshed: (v, t) => store.saveRefreshed(v, t),
      markNeedsReconnect: (r, v) => store.markNeedsReconnect(r, v),
      withRefreshLock: (fn) => store.withRefreshLock(fn),
    };
    const rec = recordingFetch();
    const d = fast({ fetch: rec.fetch }).deps;
    const outs = await Promise.all([
      importOrder(settings, store, ORDER, { idempotencyKey: "par-1", deps: d }),
      importOrder(settings, store, { ...ORDER, external_order_id: "order-1002" }, { idempotencyKey: "par-2", deps: d }),
      importOrder(settings, other, { ...ORDER, external_order_id: "order-1003" }, { idempotencyKey: "par-3", deps: d }),
    ]);
    expect(outs.map((o) => o.ok)).toEqual([true, true, true]);
    expect(rec.sent.filter((s) => s.url.endsWith("/oauth/token"))).toHaveLength(1);
    expect(store.grant).toMatchObject({ tokenVersion: 1, status: "active" });
  });

  it("a crash between refresh and save leaves the previous complete grant; the next refresh marks reconnect", async () => {
    const soon = new Date(Date.now() + 30_000);
    const { c, store } = await connectedStore(undefined, soon);
    store.failSaves = 3; // the store stays down for the whole save (its retries included)
    const out = await importOrder(settings, store, ORDER, { idempotencyKey: "o-crash", deps: fast().deps });
    expect(out.ok).toBe(true); // this call still used the fresh access token
    // Nothing half-written: the previous set, version and status are untouched.
    expect(store.grant).toMatchObject({
      accessToken: c.accessToken,
      refreshToken: c.refreshToken,
      accessTokenExpiresAt: soon,
      tokenVersion: 0,
      status: "active",
    });
    // "Restarted process": the stored refresh token was used up by the lost rotation; the grant is flagged once,
    // with a reason, instead of failing in a loop.
    const next = await importOrder(settings, store, ORDER, { idempotencyKey: "o-crash-2", deps: fast().deps });
    expect(next).toMatchObject({ ok: false, kind: "reconnect_required", retryable: false });
    expect(store.grant).toMatchObject({ status: "needs_reconnect", accessToken: c.accessToken });
  });

  it("a store that fails once during the save is retried: the rotated token is not lost", async () => {
    const { c, store } = await connectedStore(undefined, new Date(Date.now() + 30_000));
    store.failSaves = 1;
    const out = await importOrder(settings, store, ORDER, { idempotencyKey: "o-blip", deps: fast().deps });
    expect(out.ok).toBe(true);
    expect(store.grant).toMatchObject({ tokenVersion: 1, status: "active" });
    expect(store.grant!.refreshToken).not.toBe(c.refreshToken);
  });
});
