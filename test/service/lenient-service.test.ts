// The client against a service that differs from our contract where the spec is silent, with a scripted fetch:
// error bodies with only `error`, non-JSON or empty; free `status`; Retry-After missing or an HTTP-date;
// `expires_in` absent. Also: payload validation before sending, network errors, timeouts, no secrets in messages.
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { describe, expect, it } from "vitest";
import { createCartHandoff, importOrder, importShipment, serviceOrigins, type Outcome } from "~/service/client.server";
import { sendAttempt, type Endpoint } from "~/service/http.server";
import { ResourceResponseSchema } from "~/service/schemas";
import { CART, controlled, json, ORDER, scriptedFetch, SETTINGS } from "./support";

const TOKEN = "at-secret-access-token-value";
const REFRESH = "rt-secret-refresh-token-value";
const grant = (over: Partial<ConstructorParameters<typeof MemoryGrantStore>[0] & object> = {}) =>
  new MemoryGrantStore({
    workspaceId: "ws-acme",
    accessToken: TOKEN,
    accessTokenExpiresAt: null,
    refreshToken: REFRESH,
    scopes: ["orders:write", "shipments:write"],
    boundOrigins: serviceOrigins(SETTINGS),
    ...over,
  });

async function mapOne(endpoint: Endpoint, res: Response): Promise<Outcome<unknown>> {
  const { fetch } = scriptedFetch([res]);
  return sendAttempt(
    { fetch, now: () => 0, timeoutMs: 1000 },
    { endpoint, url: new URL("https://svc.example.test/x"), headers: {}, body: new Uint8Array() },
    ResourceResponseSchema,
  );
}

describe("mapping answers to outcomes", () => {
  const cases: [Endpoint, number, string, string, boolean][] = [
    // endpoint, status, body, expected kind, retryable
    ["cart-handoffs", 401, '{"error":"invalid_signature"}', "invalid_signature", false],
    ["cart-handoffs", 401, "", "invalid_signature", false],
    ["cart-handoffs", 409, '{"error":"replayed_request"}', "replayed_request", true],
    ["cart-handoffs", 409, '{"error":"idempotency_conflict"}', "idempotency_conflict", false],
    ["cart-handoffs", 422, "<html>bad</html>", "invalid_payload", false],
    ["orders", 401, "", "invalid_token", false],
    ["orders", 401, "Unauthorized", "invalid_token", false],
    ["orders", 403, "", "insufficient_scope", false],
    ["orders", 400, '{"error":"invalid_request"}', "invalid_request", false],
    ["orders", 409, "", "idempotency_conflict", false],
    ["shipments", 422, '{"error":"order_not_found"}', "order_not_found", false],
    ["shipments", 422, '{"error":"something_new"}', "invalid_payload", false],
    ["orders", 413, "", "payload_too_large", false],
    ["orders", 429, "", "rate_limited", true],
    ["orders", 500, "<html>Internal Server Error</html>", "server_error", true],
    ["orders", 502, '{"error":"invalid_payload"}', "server_error", true],
    ["orders", 503, "", "server_error", true],
    ["orders", 418, '{"error":"teapot"}', "unexpected_response", false],
    ["orders", 302, "", "unexpected_response", false],
  ];
  it.each(cases)("%s %i %s → %s", async (endpoint, status, body, kind, retryable) => {
    const out = await mapOne(endpoint, new Response(body || null, { status }));
    expect(out).toMatchObject({ ok: false, kind, retryable, status });
    if (!out.ok) expect(out.message).toMatch(/\w/);
  });

  it("a 422 carries the service's message as detail", async () => {
    const out = await mapOne(
      "orders",
      json(422, { error: "invalid_payload", message: "lines[0].quantity: must be > 0" }),
    );
    expect(out).toMatchObject({ kind: "invalid_payload", detail: "lines[0].quantity: must be > 0" });
  });

  it("treats status as a free string and reports idempotent replays", async () => {
    const body = { id: "0b8e0f39-5d0e-4a43-9d5c-0f1b2c3d4e5f", status: "queued-for-review", external_id: "order-1001" };
    expect(await mapOne("orders", json(201, body, { "idempotent-replayed": "true" }))).toMatchObject({
      ok: true,
      replayed: true,
      data: { status: "queued-for-review" },
    });
    expect(await mapOne("orders", json(200, body))).toMatchObject({ ok: true, replayed: false });
  });

  it("a 2xx body it cannot read is an unexpected_response, not a success", async () => {
    const out = await mapOne("orders", new Response("ok", { status: 201 }));
    expect(out).toMatchObject({ ok: false, kind: "unexpected_response", retryable: false });
  });
});

describe("validation before sending", () => {
  it("names the failing fields in plain words and sends nothing", async () => {
    const { calls, fetch } = scriptedFetch([json(201, {})]);
    const { deps } = controlled(fetch);
    const out = await importOrder(
      SETTINGS,
      grant(),
      {
        ...ORDER,
        currency: "EURO",
        lines: [
          { external_line_id: "l1", title: "Mug", quantity: 0 },
          { title: "Cup", quantity: "2" },
        ],
        note: "x",
      },
      { idempotencyKey: "order-1001", deps },
    );
    expect(calls).toHaveLength(0);
    expect(out).toMatchObject({ ok: false, kind: "invalid_payload", retryable: false, attempts: 0 });
    if (out.ok) return;
    expect(out.detail).toContain("currency: must be exactly 3 characters");
    expect(out.detail).toContain("lines[0].quantity: must be greater than 0");
    expect(out.detail).toContain("lines[1].external_line_id: is required");
    expect(out.detail).toContain("lines[1].quantity: Invalid input: expected number, received string");
    expect(out.detail).toContain("unexpected field(s) note");
    expect(out.message).toMatch(/^The data was not accepted: lines\[0\]\.quantity: must be greater than 0; /);
  });

  it("checks the cart handoff and the idempotency key too", async () => {
    const { calls, fetch } = scriptedFetch([json(201, {})]);
    const { deps } = controlled(fetch);
    const out = await createCartHandoff(
      SETTINGS,
      { ...CART, lines: [], expires_in_seconds: 30 },
      {
        idempotencyKey: "has space",
        deps,
      },
    );
    expect(calls).toHaveLength(0);
    expect(out.ok || out.detail).toMatch(/lines: .*; expires_in_seconds: .*; idempotency key: must be 1 to 255/);
  });
});

describe("retries against a lenient service", () => {
  const created = json(201, {
    handoff_id: "5d3c0c39-2d0c-4f4e-9a59-0e0c4b8c6a11",
    claim_url: "https://x/c",
    expires_at: "2026-11-23T00:00:00Z",
  });

  it("429 without Retry-After backs off exponentially with jitter", async () => {
    const { calls, fetch } = scriptedFetch([
      new Response(null, { status: 429 }),
      new Response(null, { status: 429 }),
      created,
    ]);
    const { time, deps } = controlled(fetch, { random: () => 0.25 });
    const out = await createCartHandoff(SETTINGS, CART, { idempotencyKey: "k-1", deps });
    expect(out).toMatchObject({ ok: true, attempts: 3 });
    expect(time.sleeps).toEqual([250, 500]);
    expect(calls).toHaveLength(3);
  });

  it("429 with an HTTP-date Retry-After waits until that date", async () => {
    const { fetch } = scriptedFetch([
      (req) =>
        new Response(null, {
          status: 429,
          headers: {
            "retry-after": new Date(Number(req.headers.get("x-service-timestamp")) * 1000 + 5000).toUTCString(),
          },
        }),
      created,
    ]);
    const { time, deps } = controlled(fetch);
    const out = await createCartHandoff(SETTINGS, CART, { idempotencyKey: "k-2", deps });
    expect(out.ok).toBe(true);
    expect(time.sleeps).toEqual([5000]);
  });

  it("a network error is retried; when the budget ends the outcome says so in plain words", async () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }),
    });
    const { calls, fetch } = scriptedFetch([refused]);
    const { deps } = controlled(fetch, { retry: { maxAttempts: 3 } });
    const out = await createCartHandoff(SETTINGS, CART, { idempotencyKey: "k-3", deps });
    expect(calls).toHaveLength(3);
    expect(out).toMatchObject({ ok: false, kind: "network_error", retryable: true, attempts: 3 });
    expect(out.ok || out.message).toBe("Could not reach sandbox.example.test: connection refused");
  });

  it("a timeout (AbortSignal.timeout) is its own outcome and retried", async () => {
    const hang = (req: unknown, init?: RequestInit) =>
      new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    let n = 0;
    const fetchImpl = ((url: string, init?: RequestInit) =>
      ++n < 2 ? hang(url, init) : Promise.resolve(created.clone())) as typeof fetch;
    const { deps } = controlled(fetchImpl, { timeoutMs: 50 });
    const out = await createCartHandoff(SETTINGS, CART, { idempotencyKey: "k-4", deps });
    expect(out).toMatchObject({ ok: true, attempts: 2 });

    const { deps: d2 } = controlled(hang as typeof fetch, { timeoutMs: 30, retry: { maxAttempts: 1 } });
    const out2 = await createCartHandoff(SETTINGS, CART, { idempotencyKey: "k-5", deps: d2 });
    expect(out2).toMatchObject({ ok: false, kind: "timeout", retryable: true });
  });
});

describe("tokens against a lenient service", () => {
  const resource = json(201, { id: "0b8e0f39-5d0e-4a43-9d5c-0f1b2c3d4e5f", status: "whatever", external_id: "x" });

  it("without expires_in the token is used until a 401, then refreshed once (and the rotation saved)", async () => {
    const { calls, fetch } = scriptedFetch([
      resource,
      json(401, { error: "invalid_token" }),
      json(200, { access_token: "at-new-secret", token_type: "Bearer", refresh_token: "rt-new-secret" }), // no expires_in
      resource,
    ]);
    const { deps } = controlled(fetch);
    const store = grant();
    expect(await importOrder(SETTINGS, store, ORDER, { idempotencyKey: "o-1", deps })).toMatchObject({
      ok: true,
      attempts: 1,
    });
    const out = await importOrder(SETTINGS, store, ORDER, { idempotencyKey: "o-2", deps });
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(calls.map((c) => new URL(c.url).pathname)).toEqual([
      "/api/v1/orders",
      "/api/v1/orders",
      "/oauth/token",
      "/api/v1/orders",
    ]);
    expect(calls[3].headers.get("authorization")).toBe("Bearer at-new-secret");
    expect(calls[3].headers.get("idempotency-key")).toBe("o-2");
    expect(calls[3].body).toEqual(calls[1].body);
    expect(store.grant).toMatchObject({
      accessToken: "at-new-secret",
      refreshToken: "rt-new-secret",
      accessTokenExpiresAt: null,
      tokenVersion: 1,
    });
    // client_secret_basic by default
    expect(calls[2].headers.get("authorization")).toMatch(/^Basic /);
  });

  it("a second 401 after the refresh is final: invalid_token", async () => {
    const { calls, fetch } = scriptedFetch([
      new Response(null, { status: 401 }),
      json(200, { access_token: "at-2", token_type: "bearer", expires_in: 3600, refresh_token: "rt-2" }),
      new Response(null, { status: 401 }),
    ]);
    const { deps } = controlled(fetch);
    const out = await importShipment(
      SETTINGS,
      grant(),
      {
        external_shipment_id: "s-1",
        external_order_id: "order-1001",
        shipped_at: "2026-11-02T10:00:00+01:00",
        lines: [{ external_order_line_id: "line-1", quantity: 1 }],
      },
      { idempotencyKey: "s-1", deps },
    );
    expect(calls).toHaveLength(3);
    expect(out).toMatchObject({ ok: false, kind: "invalid_token", retryable: false, attempts: 2 });
  });

  it("a token endpoint hiccup after a 401 is retried (with backoff) rather than ending the call", async () => {
    const { calls, fetch } = scriptedFetch([
      new Response(null, { status: 401 }),
      new Response("<html>busy</html>", { status: 503 }),
      new Response(null, { status: 401 }),
      json(200, { access_token: "at-2", token_type: "bearer", refresh_token: "rt-2" }),
      resource,
    ]);
    const { time, deps } = controlled(fetch);
    const store = grant();
    const out = await importOrder(SETTINGS, store, ORDER, { idempotencyKey: "o-5", deps });
    expect(out).toMatchObject({ ok: true, attempts: 4 });
    expect(time.sleeps).toEqual([500]);
    expect(calls.map((c) => new URL(c.url).pathname)).toEqual([
      "/api/v1/orders",
      "/oauth/token",
      "/api/v1/orders",
      "/oauth/token",
      "/api/v1/orders",
    ]);
    expect(store.grant).toMatchObject({ accessToken: "at-2", refreshToken: "rt-2", tokenVersion: 1 });
  });

  it("client_secret_post when the settings say so", async () => {
    const { calls, fetch } = scriptedFetch([
      new Response(null, { status: 401 }),
      json(200, { access_token: "at-2", token_type: "bearer", refresh_token: "rt-2" }),
      resource,
    ]);
    const { deps } = controlled(fetch);
    await importOrder({ ...SETTINGS, clientAuthMethod: "client_secret_post" }, grant(), ORDER, {
      idempotencyKey: "o-3",
      deps,
    });
    expect(calls[1].headers.get("authorization")).toBeNull();
    const form = new URLSearchParams(new TextDecoder().decode(calls[1].body));
    expect(form.get("client_id")).toBe(SETTINGS.clientId);
    expect(form.get("client_secret")).toBe(SETTINGS.clientSecret);
    expect(form.get("grant_type")).toBe("refresh_token");
  });

  it("never puts a secret or token into an outcome", async () => {
    const outs: unknown[] = [];
    for (const res of [new Response(null, { status: 401 }), json(400, { error: "invalid_grant" }), json(500, {})]) {
      const { fetch } = scriptedFetch([json(401, { error: "invalid_token" }), res]);
      const { deps } = controlled(fetch, { retry: { maxAttempts: 1 } });
      outs.push(await importOrder(SETTINGS, grant(), ORDER, { idempotencyKey: "o-4", deps }));
      outs.push(await createCartHandoff(SETTINGS, CART, { idempotencyKey: "h-4", deps }));
    }
    const text = JSON.stringify(outs);
    for (const secret of [TOKEN, REFRESH, SETTINGS.clientSecret, SETTINGS.signingSecret])
      expect(text).not.toContain(secret);
  });
});
