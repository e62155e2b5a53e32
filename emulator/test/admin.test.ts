// The emulator's own surface and the claim page (docs/service.md, "The emulator", "Endpoints").
import { describe, expect, it } from "vitest";
import { addFault, cart, errorOf, getTokens, order, postHandoff, postImport, sharedEmulator, state } from "./helpers";

const t = sharedEmulator();

describe("GET /_emulator/state", () => {
  it("lists handoffs, orders, shipments and the request log in arrival order", async () => {
    const empty = await state(t);
    expect(empty).toEqual({ handoffs: [], orders: [], shipments: [], requests: [] });

    const handoff = (await (await postHandoff(t, { idempotencyKey: "h-1" })).json()) as { handoff_id: string };
    const tokens = await getTokens(t, { workspace: "ws-globex" });
    await postImport(t, "orders", order("o-1"), { token: tokens.access_token, idempotencyKey: "o-k" });
    await postImport(t, "orders", order("o-1"), { token: tokens.access_token, idempotencyKey: "o-k" });
    await postImport(t, "shipments", { nope: 1 }, { token: tokens.access_token, idempotencyKey: "s-k" });

    const s = await state(t);
    expect(s.handoffs).toEqual([
      expect.objectContaining({
        handoff_id: handoff.handoff_id,
        client_id: "sandbox-client",
        body: cart(),
        claimed_workspace_id: null,
      }),
    ]);
    expect(s.orders).toEqual([
      expect.objectContaining({ workspace_id: "ws-globex", external_id: "o-1", body: order("o-1") }),
    ]);
    expect(s.shipments).toEqual([]);
    expect(s.requests).toHaveLength(4);
    for (const r of s.requests) {
      expect(Object.keys(r).sort()).toEqual(
        [
          "at",
          "error",
          "external_id",
          "idempotency_key",
          "method",
          "path",
          "replayed",
          "status",
          "workspace_id",
        ].sort(),
      );
      expect(r.at).toBe(new Date(t.clock.now).toISOString());
    }
    expect(
      s.requests.map((r) => [r.path, r.status, r.error, r.idempotency_key, r.replayed, r.external_id, r.workspace_id]),
    ).toEqual([
      ["/api/v1/cart-handoffs", 201, null, "h-1", false, "cart-1", null],
      ["/api/v1/orders", 201, null, "o-k", false, "o-1", "ws-globex"],
      ["/api/v1/orders", 201, null, "o-k", true, "o-1", "ws-globex"],
      ["/api/v1/shipments", 422, "invalid_payload", "s-k", false, null, "ws-globex"],
    ]);
  });
});

describe("POST /_emulator/faults", () => {
  it("with status: answers it (body, headers) without processing, `times` times, then normal again", async () => {
    const res = await addFault(t, {
      method: "POST",
      path: "/api/v1/cart-handoffs",
      status: 503,
      body: { error: "unavailable" },
      headers: { "Retry-After": "7" },
      times: 2,
    });
    expect(res.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const r = await postHandoff(t);
      expect(r.status).toBe(503);
      expect(r.headers.get("retry-after")).toBe("7");
      expect(await r.json()).toEqual({ error: "unavailable" });
    }
    expect((await postHandoff(t)).status).toBe(201);
    const s = await state(t);
    expect(s.handoffs).toHaveLength(1);
    expect(s.requests.map((r) => [r.status, r.error])).toEqual([
      [503, "unavailable"],
      [503, "unavailable"],
      [201, null],
    ]);
  });

  it("a missing method or path matches any request; a non-matching one is left for later", async () => {
    await addFault(t, { path: "/api/v1/orders", status: 500 });
    expect((await postHandoff(t)).status).toBe(201);
    await addFault(t, { status: 429, headers: { "retry-after": "3" } });
    const r = await postHandoff(t);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("3");
    const tokens = await getTokens(t);
    expect((await postImport(t, "orders", order(), { token: tokens.access_token })).status).toBe(500);
    expect((await postImport(t, "orders", order(), { token: tokens.access_token })).status).toBe(201);
  });

  it("status with delay_ms waits, then answers", async () => {
    await addFault(t, { status: 502, delay_ms: 150 });
    const started = performance.now();
    const r = await postHandoff(t);
    expect(r.status).toBe(502);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("rejects malformed faults with 400", async () => {
    for (const bad of [{ status: "500" }, { times: 0 }, { delay_ms: -1 }, { status: 99 }, { unknown: 1 }]) {
      const res = await addFault(t, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
  });

  it("reset forgets pending faults", async () => {
    await addFault(t, { status: 500 });
    await fetch(`${t.url}/_emulator/reset`, { method: "POST" });
    expect((await postHandoff(t)).status).toBe(201);
  });
});

describe("POST /_emulator/reset", () => {
  it("forgets data, the log, nonces, keys, codes and tokens", async () => {
    const tokens = await getTokens(t);
    const nonce = "reset-nonce-000000001";
    await postHandoff(t, { nonce, idempotencyKey: "k" });
    await postImport(t, "orders", order(), { token: tokens.access_token, idempotencyKey: "k" });
    const res = await fetch(`${t.url}/_emulator/reset`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await state(t)).toEqual({ handoffs: [], orders: [], shipments: [], requests: [] });
    expect((await postHandoff(t, { nonce, idempotencyKey: "k" })).status).toBe(201);
    expect((await postImport(t, "orders", order(), { token: tokens.access_token })).status).toBe(401);
  });
});

describe("claim page", () => {
  const create = async (body: unknown) => {
    const res = await postHandoff(t, { body });
    return (await res.json()) as { handoff_id: string; claim_url: string; expires_at: string };
  };

  it("lists the lines (title, quantity, price when given), escaped, with a claim form", async () => {
    const h = await create({
      ...cart(0),
      lines: [
        { external_line_id: "a", title: "Blue <mug> & co", quantity: 2, unit_price_minor: 1250, currency: "EUR" },
        { external_line_id: "b", title: "Sticker", quantity: 0.5 },
      ],
    });
    const res = await fetch(h.claim_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain("Blue &lt;mug&gt; &amp; co");
    expect(html).not.toContain("<mug>");
    expect(html).toContain("12.50 EUR");
    expect(html).toContain("Sticker");
    expect(html).toMatch(/<td>0\.5<\/td>/);
    expect(html).toContain('<form method="post"');
    expect(html).toContain('name="workspace_id"');
    expect(html).toContain('value="ws-acme"');
  });

  it("POST claims it into a workspace and confirms", async () => {
    const h = await create(cart(2));
    const res = await fetch(h.claim_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ workspace_id: "ws-globex" }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Globex Workspace");
    const s = await state(t);
    expect(s.handoffs[0]).toMatchObject({ claimed_workspace_id: "ws-globex" });
    const again = await fetch(h.claim_url);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("claimed into Globex Workspace");
    const elsewhere = await fetch(h.claim_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ workspace_id: "ws-acme" }),
    });
    expect(elsewhere.status).toBe(409);
    const unknown = await fetch(h.claim_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ workspace_id: "ws-nope" }),
    });
    expect(unknown.status).toBe(400);
  });

  it("unknown handoff: a 404 page; expired: a 410 page (GET and POST)", async () => {
    const missing = await fetch(`${t.url}/claim/00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await missing.text()).toContain("not found");

    const h = await create(cart(1, { expires_in_seconds: 60 }));
    t.advance(59);
    expect((await fetch(h.claim_url)).status).toBe(200);
    t.advance(1);
    const expired = await fetch(h.claim_url);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain("expired");
    const post = await fetch(h.claim_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ workspace_id: "ws-acme" }),
    });
    expect(post.status).toBe(410);
  });
});

describe("general", () => {
  it("413 payload_too_large on every endpoint, before any other check", async () => {
    const big = "x".repeat(1024 * 1024 + 10);
    for (const path of ["/api/v1/orders", "/api/v1/shipments", "/oauth/token"]) {
      const res = await fetch(t.url + path, {
        method: "POST",
        body: big,
        headers: { "content-type": "application/json" },
      });
      expect(res.status, path).toBe(413);
      expect(await errorOf(res)).toBe("payload_too_large");
    }
  });

  it("malformed escapes in a claim or client id are simply unknown (404)", async () => {
    expect((await fetch(`${t.url}/claim/%E0%A4%A`)).status).toBe(404);
    const rot = await fetch(`${t.url}/_emulator/clients/%E0%A4%A/rotate-signing-secret`, { method: "POST" });
    expect(rot.status).toBe(404);
  });

  it("unknown paths: 404 not_found", async () => {
    const res = await fetch(`${t.url}/api/v2/orders`, { method: "POST" });
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toBe("not_found");
  });

  it("base URL, sandbox base URL and auth URL are one origin", async () => {
    expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${t.url}/oauth/authorize`)).status).toBe(400);
  });
});
