// Cart handoffs against the emulator over real HTTP, with faults injected through /_emulator/faults.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { startEmulator } from "../../emulator/server";
import { checkConnection, createCartHandoff, type ServiceSettings } from "~/service/client.server";
import { realSleep } from "~/lib/sleep";
import { emulatorSettings } from "../helpers/emulator-oauth";
import { CART, controlled, fakeTime, recordingFetch } from "./support";
import { emulatorState, injectFault, resetEmulator } from "../helpers/emulator";

let emu: Awaited<ReturnType<typeof startEmulator>>;
let settings: ServiceSettings;
const PATH = "/api/v1/cart-handoffs";

beforeAll(async () => {
  emu = await startEmulator();
  settings = emulatorSettings(emu.url);
});
afterAll(() => emu.close());
beforeEach(() => resetEmulator(emu.url));

/** Controlled deps whose fake clock starts at the real now (the service checks timestamps within ±300 s). */
function deps(fetchImpl: typeof fetch = fetch, extra: Parameters<typeof controlled>[1] = {}) {
  const time = fakeTime(Date.now());
  let n = 0;
  return {
    time,
    deps: {
      ...controlled(fetchImpl).deps,
      now: time.now,
      sleep: time.sleep,
      newNonce: () => `test-nonce-${Date.now()}-${++n}`,
      ...extra,
    },
  };
}

describe("cart handoffs against the emulator", () => {
  it("creates a handoff; the same key and body again is an idempotent replay", async () => {
    const first = await createCartHandoff(settings, CART, { idempotencyKey: "cart-1001-a", deps: deps().deps });
    expect(first).toMatchObject({ ok: true, status: 201, replayed: false, attempts: 1 });
    if (!first.ok) return;
    expect(first.data.claim_url).toBe(`${emu.url}/claim/${first.data.handoff_id}`);
    const again = await createCartHandoff(settings, CART, { idempotencyKey: "cart-1001-a", deps: deps().deps });
    expect(again).toMatchObject({ ok: true, replayed: true, data: first.data });
    expect((await emulatorState(emu.url)).handoffs).toHaveLength(1);
  });

  it("500s then success: retried with the same key and bytes, re-signed each time, one handoff stored", async () => {
    await injectFault(emu.url, { path: PATH, status: 500, body: { error: "internal_error" }, times: 2 });
    const rec = recordingFetch();
    const { time, deps: d } = deps(rec.fetch, { random: () => 0.6 });
    const out = await createCartHandoff(settings, CART, { idempotencyKey: "cart-retry-1", deps: d });
    expect(out).toMatchObject({ ok: true, replayed: false, attempts: 3 });
    expect(time.sleeps).toEqual([600, 1200]); // full jitter, base 1 s, doubling

    const state = await emulatorState(emu.url);
    expect(state.handoffs).toHaveLength(1);
    expect(state.requests.map((r) => [r.idempotency_key, r.status])).toEqual([
      ["cart-retry-1", 500],
      ["cart-retry-1", 500],
      ["cart-retry-1", 201],
    ]);
    const nonces = rec.sent.map((s) => s.headers.get("x-service-nonce"));
    const stamps = rec.sent.map((s) => s.headers.get("x-service-timestamp"));
    const sigs = rec.sent.map((s) => s.headers.get("x-service-signature"));
    expect(new Set(nonces).size).toBe(3);
    expect(new Set(sigs).size).toBe(3);
    expect(Number(stamps[2])).toBeGreaterThan(Number(stamps[0])); // the clock moved across the waits
    expect(new Set(rec.sent.map((s) => s.headers.get("idempotency-key")))).toEqual(new Set(["cart-retry-1"]));
    expect(Buffer.from(rec.sent[1].body).equals(Buffer.from(rec.sent[0].body))).toBe(true);
    expect(Buffer.from(rec.sent[2].body).equals(Buffer.from(rec.sent[0].body))).toBe(true);
  });

  it("429 with Retry-After: 2 really waits at least 2 s before the retry", async () => {
    await injectFault(emu.url, {
      path: PATH,
      status: 429,
      body: { error: "rate_limited" },
      headers: { "retry-after": "2" },
    });
    const slept: number[] = [];
    const started = performance.now();
    const out = await createCartHandoff(settings, CART, {
      idempotencyKey: "cart-429",
      deps: { sleep: (ms, signal) => (slept.push(ms), realSleep(ms, signal)), random: () => 0.5 },
    });
    const elapsed = performance.now() - started;
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(slept).toEqual([2000]);
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    const log = (await emulatorState(emu.url)).requests;
    expect(log.map((r) => r.status)).toEqual([429, 201]);
    expect(Date.parse(log[1].at) - Date.parse(log[0].at)).toBeGreaterThanOrEqual(1990);
  });

  it("a timeout is retried with the same key and re-signed; the service answers the retry from its store", async () => {
    // Processed normally but 500 ms slow: the 150 ms client timeout fires, the retry (after ~900 ms) is replayed.
    await injectFault(emu.url, { path: PATH, delay_ms: 500 });
    const rec = recordingFetch();
    const out = await createCartHandoff(settings, CART, {
      idempotencyKey: "cart-timeout",
      deps: { fetch: rec.fetch, timeoutMs: 150, random: () => 0.9 },
    });
    expect(out).toMatchObject({ ok: true, replayed: true, attempts: 2 });
    const state = await emulatorState(emu.url);
    expect(state.handoffs).toHaveLength(1);
    expect(state.requests.filter((r) => r.idempotency_key === "cart-timeout")).toHaveLength(2);
    expect(rec.sent[0].headers.get("x-service-nonce")).not.toBe(rec.sent[1].headers.get("x-service-nonce"));
  });

  it("an idempotency conflict (same key, other body) is final and not retried", async () => {
    expect((await createCartHandoff(settings, CART, { idempotencyKey: "cart-c", deps: deps().deps })).ok).toBe(true);
    const other = { ...CART, cart_reference: "r-2" };
    const out = await createCartHandoff(settings, other, { idempotencyKey: "cart-c", deps: deps().deps });
    expect(out).toMatchObject({ ok: false, kind: "idempotency_conflict", retryable: false, status: 409, attempts: 1 });
    const state = await emulatorState(emu.url);
    expect(state.requests.map((r) => r.status)).toEqual([201, 409]);
    expect(state.handoffs).toHaveLength(1);
  });

  it("a wrong signing secret is invalid_signature, final, and the message says what to check", async () => {
    const out = await createCartHandoff({ ...settings, signingSecret: "whsec-wrong" }, CART, {
      idempotencyKey: "cart-sig",
      deps: deps().deps,
    });
    expect(out).toMatchObject({ ok: false, kind: "invalid_signature", retryable: false, status: 401, attempts: 1 });
    expect(out.ok || out.message).toMatch(/signing secret/);
    expect(out.ok || out.message).not.toContain("whsec");
  });

  it("a reused nonce is a replayed_request", async () => {
    const sameNonce = { ...deps().deps, newNonce: () => "nonce-used-twice-0001" };
    expect((await createCartHandoff(settings, CART, { idempotencyKey: "cart-n1", deps: sameNonce })).ok).toBe(true);
    const out = await createCartHandoff(settings, CART, { idempotencyKey: "cart-n2", deps: sameNonce });
    expect(out).toMatchObject({ ok: false, kind: "replayed_request", retryable: true, status: 409, attempts: 1 });
  });

  it("rate limited beyond the budget: the outcome carries the wait", async () => {
    await injectFault(emu.url, {
      path: PATH,
      status: 429,
      body: { error: "rate_limited" },
      headers: { "retry-after": "7" },
      times: 3,
    });
    const { time, deps: d } = deps(fetch, { retry: { maxAttempts: 2 } });
    const out = await createCartHandoff(settings, CART, { idempotencyKey: "cart-rl", deps: d });
    expect(out).toMatchObject({ ok: false, kind: "rate_limited", retryable: true, retryAfterMs: 7000, attempts: 2 });
    expect(time.sleeps).toEqual([7000]);
    expect(out.ok || out.message).toBe("The service is limiting requests. Try again in 7 s.");
  });

  it("server errors beyond the budget are a retryable server_error", async () => {
    await injectFault(emu.url, { path: PATH, status: 503, times: 5 });
    const out = await createCartHandoff(settings, CART, {
      idempotencyKey: "cart-503",
      deps: deps(fetch, { retry: { maxAttempts: 3 } }).deps,
    });
    expect(out).toMatchObject({ ok: false, kind: "server_error", retryable: true, status: 503, attempts: 3 });
  });

  it("uses the production base URL in production", async () => {
    const prod = { ...settings, environment: "production" as const, baseUrl: `${emu.url}/prod-prefix` };
    const out = await createCartHandoff(prod, CART, {
      idempotencyKey: "cart-prod",
      deps: deps(fetch, { retry: { maxAttempts: 1 } }).deps,
    });
    // The prefix is not served by the emulator: proves the production URL (not the sandbox one) was used.
    expect(out).toMatchObject({ ok: false, status: 404 });
  });
});

describe("checkConnection", () => {
  it("ok with the right secret", async () => {
    const res = await checkConnection(settings);
    expect(res).toEqual(
      expect.objectContaining({ ok: true, message: `ok: ${new URL(emu.url).host} accepted the signed request` }),
    );
    const state = await emulatorState(emu.url);
    expect(state.handoffs).toHaveLength(1);
    expect(state.handoffs[0]).toMatchObject({ body: { expires_in_seconds: 60, lines: [expect.anything()] } });
  });

  it("names a wrong signing secret", async () => {
    const res = await checkConnection({ ...settings, signingSecret: "whsec-wrong" });
    expect(res).toMatchObject({ ok: false, message: "signature rejected: check the client ID and signing secret" });
  });

  it("names an unreachable host", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const res = await checkConnection({ ...settings, sandboxBaseUrl: `http://127.0.0.1:${port}` });
    expect(res).toMatchObject({ ok: false, message: `could not reach 127.0.0.1:${port} (connection refused)` });
  });

  it("names incomplete settings without sending anything", async () => {
    const res = await checkConnection({ ...settings, signingSecret: "", sandboxBaseUrl: "not a url" });
    expect(res.ok).toBe(false);
    expect(res.message).toMatch(
      /^settings incomplete: sandboxBaseUrl: must be an http\(s\) address.*; signingSecret: is required$/,
    );
  });
});
