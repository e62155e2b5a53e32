// POST /api/v1/orders and /api/v1/shipments: the order of checks (docs/service.md), upserts, isolation, idempotency.
import { beforeEach, describe, expect, it } from "vitest";
import {
  addFault,
  errorOf,
  getTokens,
  order,
  postImport,
  sharedEmulator,
  shipment,
  state,
  type Tokens,
} from "./helpers";

const t = sharedEmulator();
let both: Tokens;
beforeEach(async () => {
  both = await getTokens(t);
});

describe("step 1: 401 invalid_token", () => {
  it("no credentials: WWW-Authenticate without an error attribute, body still invalid_token", async () => {
    for (const kind of ["orders", "shipments"] as const) {
      const res = await postImport(t, kind, order(), { token: null });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="service"');
      expect(await res.json()).toMatchObject({ error: "invalid_token" });
    }
  });

  it("a non-Bearer Authorization header counts as no credentials", async () => {
    const res = await postImport(t, "orders", order(), { authorization: "Basic Zm9vOmJhcg==" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="service"');
  });

  it('unknown token: error="invalid_token" in the header', async () => {
    for (const authorization of ["Bearer nope", "Bearer ", "bearer nope"]) {
      const res = await postImport(t, "orders", order(), { authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="service", error="invalid_token"');
      expect(await errorOf(res)).toBe("invalid_token");
    }
  });

  it("the scheme is case-insensitive", async () => {
    const res = await postImport(t, "orders", order(), { authorization: `bearer ${both.access_token}` });
    expect(res.status).toBe(201);
  });

  it("expired token (after 3600 s)", async () => {
    t.advance(3599);
    expect((await postImport(t, "orders", order(), { token: both.access_token })).status).toBe(201);
    t.advance(1);
    const res = await postImport(t, "orders", order(), { token: both.access_token });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="service", error="invalid_token"');
  });

  it("401 comes before everything else", async () => {
    const res = await postImport(t, "orders", "not json", {
      token: "bad",
      idempotencyKey: null,
      contentType: "text/plain",
    });
    expect(res.status).toBe(401);
  });
});

describe("step 2: 403 insufficient_scope", () => {
  it("orders need orders:write, shipments need shipments:write; exact header", async () => {
    const shipOnly = await getTokens(t, { scope: "shipments:write" });
    const res = await postImport(t, "orders", order(), { token: shipOnly.access_token });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="orders:write"');
    expect(await errorOf(res)).toBe("insufficient_scope");

    const orderOnly = await getTokens(t, { scope: "orders:write" });
    const res2 = await postImport(t, "shipments", shipment(), { token: orderOnly.access_token });
    expect(res2.status).toBe(403);
    expect(res2.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="shipments:write"');
  });

  it("403 comes before 400", async () => {
    const orderOnly = await getTokens(t, { scope: "orders:write" });
    const res = await postImport(t, "shipments", "junk", { token: orderOnly.access_token, idempotencyKey: null });
    expect(res.status).toBe(403);
  });
});

describe("step 4: 400 invalid_request", () => {
  it.each([
    ["Content-Type text/plain", { contentType: "text/plain" }, JSON.stringify(order())],
    ["no Content-Type", { contentType: null }, JSON.stringify(order())],
    ["no Idempotency-Key", { idempotencyKey: null }, JSON.stringify(order())],
    ["empty Idempotency-Key", { idempotencyKey: "" }, JSON.stringify(order())],
    ["256-character Idempotency-Key", { idempotencyKey: "k".repeat(256) }, JSON.stringify(order())],
    ["Idempotency-Key with a space", { idempotencyKey: "a b" }, JSON.stringify(order())],
    ["body not JSON", {}, "{oops"],
  ] as const)("%s", async (_name, opts, body) => {
    const res = await postImport(t, "orders", body, { token: both.access_token, ...opts });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_request");
  });

  it("a 255-character key is fine", async () => {
    const res = await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "k".repeat(255) });
    expect(res.status).toBe(201);
  });

  it("a zero-length body is absent: 422 invalid_payload (with Content-Type application/json)", async () => {
    for (const kind of ["orders", "shipments"] as const) {
      const res = await postImport(t, kind, "", { token: both.access_token });
      expect(res.status).toBe(422);
      expect(await errorOf(res)).toBe("invalid_payload");
    }
  });

  it("an empty body without Content-Type still fails the Content-Type check (step 4 before step 6)", async () => {
    const res = await postImport(t, "orders", "", { token: both.access_token, contentType: null });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_request");
  });
});

describe("step 5: idempotency", () => {
  it("replay with Idempotent-Replayed: true, nothing new created", async () => {
    const first = await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "k" });
    expect(first.status).toBe(201);
    const firstText = await first.text();
    const again = await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "k" });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(firstText);
    expect(JSON.parse(firstText).status).toBe("imported"); // not "updated": the replay did not import again
    const s = await state(t);
    expect(s.orders).toHaveLength(1);
    expect(s.requests.map((r) => [r.status, r.replayed, r.idempotency_key])).toEqual([
      [201, false, "k"],
      [201, true, "k"],
    ]);
  });

  it("another body with the same key: 409 idempotency_conflict", async () => {
    await postImport(t, "orders", order("a"), { token: both.access_token, idempotencyKey: "k" });
    const res = await postImport(t, "orders", order("b"), { token: both.access_token, idempotencyKey: "k" });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toBe("idempotency_conflict");
  });

  it("keys are per endpoint, per workspace and client", async () => {
    await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "k" });
    const globex = await getTokens(t, { workspace: "ws-globex" });
    const other = await postImport(t, "orders", order(), { token: globex.access_token, idempotencyKey: "k" });
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    const otherClient = await getTokens(t, { clientId: "other-client" });
    const third = await postImport(t, "orders", order(), { token: otherClient.access_token, idempotencyKey: "k" });
    expect(third.headers.get("idempotent-replayed")).toBeNull();
    // Same key on the shipments endpoint is independent.
    const ship = await postImport(t, "shipments", shipment(), { token: both.access_token, idempotencyKey: "k" });
    expect(ship.status).toBe(201);
    // Another token of the same workspace and client shares the key space.
    const second = await getTokens(t);
    const replay = await postImport(t, "orders", order(), { token: second.access_token, idempotencyKey: "k" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a 422 leaves the key unused", async () => {
    expect((await postImport(t, "orders", { bad: 1 }, { token: both.access_token, idempotencyKey: "k" })).status).toBe(
      422,
    );
    expect((await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "k" })).status).toBe(
      201,
    );
  });

  it("order_not_found (422) leaves the key unused too", async () => {
    const res = await postImport(t, "shipments", shipment(), { token: both.access_token, idempotencyKey: "k" });
    expect(res.status).toBe(422);
    await postImport(t, "orders", order(), { token: both.access_token });
    const ok = await postImport(t, "shipments", shipment(), { token: both.access_token, idempotencyKey: "k" });
    expect(ok.status).toBe(201);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
  });

  it("in flight: 409, then the finished result replays", async () => {
    // Long enough for the concurrent retry to land inside it, even on a busy machine.
    await addFault(t, { method: "POST", path: "/api/v1/orders", delay_ms: 1000 });
    const slow = postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "fly" });
    await new Promise((r) => setTimeout(r, 150));
    const res = await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "fly" });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toBe("idempotency_conflict");
    expect((await slow).status).toBe(201);
    const after = await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "fly" });
    expect(after.headers.get("idempotent-replayed")).toBe("true");
  });

  it("409 (step 5) comes before schema failures (step 6)", async () => {
    await postImport(t, "orders", order(), { token: both.access_token, idempotencyKey: "k" });
    const res = await postImport(t, "orders", "{}", { token: both.access_token, idempotencyKey: "k" });
    expect(res.status).toBe(409);
  });
});

describe("step 6: schemas", () => {
  const expectOrder = async (body: unknown, status: number) => {
    const res = await postImport(t, "orders", body, { token: both.access_token });
    expect(res.status, JSON.stringify(body).slice(0, 160)).toBe(status);
    if (status === 422) expect(await errorOf(res)).toBe("invalid_payload");
  };
  const expectShipment = async (body: unknown, status: number) => {
    const res = await postImport(t, "shipments", body, { token: both.access_token });
    expect(res.status, JSON.stringify(body).slice(0, 160)).toBe(status);
    if (status === 422) expect(await errorOf(res)).toBe("invalid_payload");
  };

  it("order lines: 1 and 500 pass, 0 and 501 fail", async () => {
    await expectOrder(order("a", 1), 201);
    await expectOrder(order("b", 500), 201);
    await expectOrder(order("c", 0), 422);
    await expectOrder(order("d", 501), 422);
  });

  it("currency: exactly 3 characters (2 and 4 fail); absent is fine", async () => {
    await expectOrder(order("a", 1, { currency: "EUR" }), 201);
    await expectOrder(order("a", 1, { currency: "EU" }), 422);
    await expectOrder(order("a", 1, { currency: "EURO" }), 422);
    await expectOrder(order("a", 1, { currency: "" }), 422);
    await expectOrder(order("a", 1, { currency: "€€€" }), 201);
  });

  it("ordered_at: RFC 3339 with a zone", async () => {
    await expectOrder(order("a", 1, { ordered_at: "2026-11-22T10:00:00.123+01:00" }), 201);
    await expectOrder(order("a", 1, { ordered_at: "2026-11-22T10:00:00" }), 422);
    await expectOrder(order("a", 1, { ordered_at: "2026-11-22" }), 422);
    await expectOrder(order("a", 1, { ordered_at: "yesterday" }), 422);
  });

  it("quantity > 0: 0.5 passes, 0 fails", async () => {
    const withLine = (line: Record<string, unknown>) => ({
      ...order(),
      lines: [{ external_line_id: "ol0", title: "t", quantity: 1, ...line }],
    });
    await expectOrder(withLine({ quantity: 0.5 }), 201);
    await expectOrder(withLine({ quantity: 0 }), 422);
    await expectOrder(withLine({ external_product_id: "p", merchant_sku: "s" }), 201);
    await expectOrder(withLine({ unit_price_minor: 100 }), 422); // not an OrderLine property
  });

  it("no other properties at any level; required fields", async () => {
    await expectOrder(order("a", 1, { note: "x" }), 422);
    const o = order();
    (o.lines[0] as Record<string, unknown>).extra = true;
    await expectOrder(o, 422);
    for (const field of ["external_order_id", "ordered_at", "lines"]) {
      const b: Record<string, unknown> = order();
      delete b[field];
      await expectOrder(b, 422);
    }
    await expectOrder("null", 422);
    await expectOrder("[]", 422);
  });

  it("shipment lines: 1 and 500 pass, 0 and 501 fail; quantity; extra properties; shipped_at", async () => {
    await postImport(t, "orders", order("order-1", 500), { token: both.access_token });
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `ol${i % 500}`);
    await expectShipment(shipment("s1", "order-1", ids(1)), 201);
    await expectShipment(shipment("s2", "order-1", ids(500)), 201);
    await expectShipment(shipment("s3", "order-1", ids(0)), 422);
    await expectShipment(shipment("s4", "order-1", ids(501)), 422);
    await expectShipment({ ...shipment(), lines: [{ external_order_line_id: "ol0", quantity: 0.5 }] }, 201);
    await expectShipment({ ...shipment(), lines: [{ external_order_line_id: "ol0", quantity: 0 }] }, 422);
    await expectShipment({ ...shipment(), lines: [{ external_order_line_id: "ol0", quantity: 1, x: 1 }] }, 422);
    await expectShipment(shipment("s5", "order-1", ["ol0"], { carrier: "DHL", tracking_number: "" }), 201);
    await expectShipment(shipment("s6", "order-1", ["ol0"], { extra: 1 }), 422);
    await expectShipment(shipment("s7", "order-1", ["ol0"], { shipped_at: "2026-11-22 11:00" }), 422);
  });
});

describe("step 7: order_not_found and shipment lines", () => {
  it("a shipment for an order not imported into the workspace: 422 order_not_found", async () => {
    const res = await postImport(t, "shipments", shipment(), { token: both.access_token });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toBe("order_not_found");
  });

  it("schema failures (step 6) win over order_not_found", async () => {
    const res = await postImport(t, "shipments", { ...shipment(), lines: [] }, { token: both.access_token });
    expect(await errorOf(res)).toBe("invalid_payload");
  });

  it("workspaces are isolated: an order of ws-acme is not found from ws-globex", async () => {
    await postImport(t, "orders", order(), { token: both.access_token });
    const globex = await getTokens(t, { workspace: "ws-globex" });
    const res = await postImport(t, "shipments", shipment(), { token: globex.access_token });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toBe("order_not_found");
    // The same external id in another workspace is a separate order.
    const imported = await postImport(t, "orders", order(), { token: globex.access_token });
    expect(((await imported.json()) as { status: string }).status).toBe("imported");
  });

  it("a line that is not in the order's latest import: 422 invalid_payload", async () => {
    await postImport(t, "orders", order("order-1", 2), { token: both.access_token }); // ol0, ol1
    expect(
      (await postImport(t, "shipments", shipment("s", "order-1", ["ol1"]), { token: both.access_token })).status,
    ).toBe(201);
    const missing = await postImport(t, "shipments", shipment("s", "order-1", ["ol9"]), { token: both.access_token });
    expect(missing.status).toBe(422);
    expect(await errorOf(missing)).toBe("invalid_payload");
    // Re-import the order with only ol0: ol1 no longer counts.
    await postImport(t, "orders", order("order-1", 1), { token: both.access_token });
    const gone = await postImport(t, "shipments", shipment("s2", "order-1", ["ol1"]), { token: both.access_token });
    expect(gone.status).toBe(422);
    expect(await errorOf(gone)).toBe("invalid_payload");
  });
});

describe("step 8: upserts", () => {
  it("first import answers imported, a later one updated with the same id", async () => {
    const first = (await (await postImport(t, "orders", order(), { token: both.access_token })).json()) as Record<
      string,
      string
    >;
    expect(first).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: "imported", external_id: "order-1" });
    const second = (await (
      await postImport(t, "orders", order("order-1", 3), { token: both.access_token })
    ).json()) as Record<string, string>;
    expect(second).toEqual({ id: first.id, status: "updated", external_id: "order-1" });

    const s1 = (await (await postImport(t, "shipments", shipment(), { token: both.access_token })).json()) as Record<
      string,
      string
    >;
    expect(s1).toMatchObject({ status: "imported", external_id: "ship-1" });
    const s2 = (await (
      await postImport(t, "shipments", shipment("ship-1", "order-1", ["ol2"]), { token: both.access_token })
    ).json()) as Record<string, string>;
    expect(s2).toEqual({ id: s1.id, status: "updated", external_id: "ship-1" });

    const s = await state(t);
    expect(s.orders).toHaveLength(1);
    expect(s.orders[0]).toMatchObject({ id: first.id, workspace_id: "ws-acme", external_id: "order-1" });
    expect((s.orders[0].body as { lines: unknown[] }).lines).toHaveLength(3); // latest import
    expect(s.shipments[0]).toMatchObject({
      id: s1.id,
      workspace_id: "ws-acme",
      body: shipment("ship-1", "order-1", ["ol2"]),
    });
    expect(s.requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/api/v1/shipments",
      status: 201,
      error: null,
      replayed: false,
      external_id: "ship-1",
      workspace_id: "ws-acme",
    });
  });
});
