// POST /api/v1/cart-handoffs: signature (docs/service.md, "Cart handoff signature"), order of checks, idempotency,
// schema limits.
import { describe, expect, it } from "vitest";
import { sha256Hex, sign, signedString } from "../signature";
import { addFault, cart, errorOf, nonce, postHandoff, sharedEmulator, start, state, TEST_CONFIG } from "./helpers";

const t = sharedEmulator();

const VECTOR_BODY =
  '{"external_cart_id":"cart-1001","cart_reference":"r-1","lines":[{"external_line_id":"l1","title":"Blue mug","quantity":2,"unit_price_minor":1250,"currency":"EUR"}]}';

describe("signature test vector (contract 1)", () => {
  it("reproduces the body hash and signature exactly", () => {
    const parts = {
      method: "POST",
      pathWithQuery: "/api/v1/cart-handoffs",
      clientId: "sandbox-client",
      timestamp: "1795000000",
      nonce: "4f2c8d1e-9a7b-4c3d-8e5f-0a1b2c3d4e5f",
      idempotencyKey: "handoff-cart-1001",
      body: VECTOR_BODY,
    };
    expect(sha256Hex(VECTOR_BODY)).toBe("c495c4f3bafbdb30c59070ca44ead2136e9e0cd24b924905ce5358a2f74c1d52");
    expect(signedString(parts).split("\n")).toHaveLength(8);
    expect(sign("whsec-test-0001", parts)).toBe("52476d4d4c91bff37e27e810e11d680470a951408687b7f6a2b67e3eb7fec10a");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("accepts the vector's exact request over HTTP at its timestamp", async () => {
    const v = await start(TEST_CONFIG, 1795000000 * 1000);
    try {
      const res = await fetch(`${v.url}/api/v1/cart-handoffs`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-service-client-id": "sandbox-client",
          "x-service-timestamp": "1795000000",
          "x-service-nonce": "4f2c8d1e-9a7b-4c3d-8e5f-0a1b2c3d4e5f",
          "idempotency-key": "handoff-cart-1001",
          "x-service-signature": "v1=52476d4d4c91bff37e27e810e11d680470a951408687b7f6a2b67e3eb7fec10a",
        },
        body: VECTOR_BODY,
      });
      expect(res.status).toBe(201);
      const body = (await res.json()) as Record<string, string>;
      expect(Object.keys(body).sort()).toEqual(["claim_url", "expires_at", "handoff_id"]);
      expect(body.handoff_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(body.claim_url).toBe(`${v.url}/claim/${body.handoff_id}`);
      // Default expiry: 86400 s.
      expect(body.expires_at).toBe(new Date((1795000000 + 86400) * 1000).toISOString());
    } finally {
      await v.close();
    }
  });
});

describe("step 1: 401 invalid_signature", () => {
  it.each(["x-service-client-id", "x-service-timestamp", "x-service-nonce", "x-service-signature"])(
    "missing %s",
    async (h) => {
      const res = await postHandoff(t, { headers: { [h]: null } });
      expect(res.status).toBe(401);
      expect(await errorOf(res)).toBe("invalid_signature");
    },
  );

  it("unknown client", async () => {
    const res = await postHandoff(t, { clientId: "nobody" });
    expect(res.status).toBe(401);
    expect(await errorOf(res)).toBe("invalid_signature");
  });

  it("the signing secret of another client does not work", async () => {
    const res = await postHandoff(t, { clientId: "sandbox-client", secret: "whsec-other-0001" });
    expect(res.status).toBe(401);
    expect((await postHandoff(t, { clientId: "other-client", secret: "whsec-other-0001" })).status).toBe(201);
  });

  it("timestamp window is ±300 s inclusive", async () => {
    const s = Math.floor(t.clock.now / 1000);
    for (const [offset, status] of [
      [-300, 201],
      [300, 201],
      [-301, 401],
      [301, 401],
    ] as const) {
      const res = await postHandoff(t, { timestamp: String(s + offset) });
      expect(res.status, `offset ${offset}`).toBe(status);
    }
  });

  it.each(["", "12.5", "-1", "1e9", "abc", " 1795000000", "2026-11-22T12:00:00Z"])(
    "malformed timestamp %j",
    async (ts) => {
      const res = await postHandoff(t, { timestamp: ts });
      expect(res.status).toBe(401);
    },
  );

  it("nonce: 16 and 128 characters of [A-Za-z0-9._~-] pass, 15, 129 and other characters are malformed", async () => {
    const ok16 = "aZ09._~-aZ09._~-";
    expect(ok16).toHaveLength(16);
    expect((await postHandoff(t, { nonce: ok16 })).status).toBe(201);
    expect((await postHandoff(t, { nonce: "n".repeat(128) })).status).toBe(201);
    expect((await postHandoff(t, { nonce: "n".repeat(15) })).status).toBe(401);
    expect((await postHandoff(t, { nonce: "n".repeat(129) })).status).toBe(401);
    expect((await postHandoff(t, { nonce: "nnnnnnnnnnnnnnnn/" })).status).toBe(401);
    expect((await postHandoff(t, { nonce: "nnnnnnnnnnnnnnnn+" })).status).toBe(401);
  });

  it("uppercase hex never matches; several entries, one matching, pass; other schemes are ignored", async () => {
    const body = JSON.stringify(cart());
    const n = nonce();
    const ts = String(Math.floor(t.clock.now / 1000));
    const parts = {
      method: "POST",
      pathWithQuery: "/api/v1/cart-handoffs",
      clientId: "sandbox-client",
      timestamp: ts,
      nonce: n,
      idempotencyKey: "k-upper",
      body,
    };
    const good = sign("whsec-test-0001", parts);
    const common = { body, nonce: n, timestamp: ts, idempotencyKey: "k-upper" };
    expect((await postHandoff(t, { ...common, signature: `v1=${good.toUpperCase()}` })).status).toBe(401);
    expect((await postHandoff(t, { ...common, signature: `v2=${good}` })).status).toBe(401);
    expect((await postHandoff(t, { ...common, signature: good })).status).toBe(401);
    expect((await postHandoff(t, { ...common, signature: `v1=${"0".repeat(64)}` })).status).toBe(401);
    // The nonce was not recorded by the failed attempts (step 1 failed), so it still works here.
    const ok = await postHandoff(t, { ...common, signature: `v0=abc, v1=${"0".repeat(64)},v1=${good}, v2=zzz` });
    expect(ok.status).toBe(201);
  });

  it("the signature covers path with query, method inputs, key and body bytes", async () => {
    // Signed for another body: fails.
    const n = nonce();
    const ts = String(Math.floor(t.clock.now / 1000));
    const other = sign("whsec-test-0001", {
      method: "POST",
      pathWithQuery: "/api/v1/cart-handoffs",
      clientId: "sandbox-client",
      timestamp: ts,
      nonce: n,
      idempotencyKey: "k1",
      body: "{}",
    });
    expect(
      (await postHandoff(t, { nonce: n, timestamp: ts, idempotencyKey: "k1", signature: `v1=${other}` })).status,
    ).toBe(401);
    // Signed with another Idempotency-Key: fails.
    const res = await postHandoff(t, { idempotencyKey: "k2", headers: { "idempotency-key": "k3" } });
    expect(res.status).toBe(401);
    // A query string is part of the signed path.
    expect((await postHandoff(t, { path: "/api/v1/cart-handoffs?x=1" })).status).toBe(201);
  });

  it("an absent Idempotency-Key is signed as an empty line (then 422 at step 4)", async () => {
    const res = await postHandoff(t, { idempotencyKey: null });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toBe("invalid_payload");
  });
});

describe("step 3: nonce replay", () => {
  it("a nonce seen for the client gives 409 replayed_request; another client may use it", async () => {
    const n = nonce();
    expect((await postHandoff(t, { nonce: n })).status).toBe(201);
    const again = await postHandoff(t, { nonce: n });
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toBe("replayed_request");
    expect((await postHandoff(t, { nonce: n, clientId: "other-client", secret: "whsec-other-0001" })).status).toBe(201);
  });

  it("the nonce is recorded once step 2 passes, even when the request then fails", async () => {
    const n = nonce();
    expect((await postHandoff(t, { nonce: n, body: "{}" })).status).toBe(422);
    expect((await postHandoff(t, { nonce: n })).status).toBe(409);
  });

  it("nonces are forgotten after 600 s", async () => {
    const n = nonce();
    expect((await postHandoff(t, { nonce: n })).status).toBe(201);
    t.advance(599);
    expect((await postHandoff(t, { nonce: n })).status).toBe(409);
    t.advance(2);
    expect((await postHandoff(t, { nonce: n })).status).toBe(201);
  });

  it("replay (409) is checked before transport checks (422)", async () => {
    const n = nonce();
    expect((await postHandoff(t, { nonce: n })).status).toBe(201);
    const res = await postHandoff(t, { nonce: n, contentType: "text/plain", body: "not json" });
    expect(res.status).toBe(409);
  });
});

describe("step 4: 422 invalid_payload for transport problems", () => {
  it.each([
    ["text/plain", "text/plain"],
    ["absent", null],
    ["form", "application/x-www-form-urlencoded"],
  ])("Content-Type %s", async (_name, contentType) => {
    const res = await postHandoff(t, { contentType });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toBe("invalid_payload");
  });

  it("accepts application/json with parameters and any case", async () => {
    expect((await postHandoff(t, { contentType: "Application/JSON; charset=utf-8" })).status).toBe(201);
  });

  it("Idempotency-Key: 1 and 255 visible ASCII characters pass; empty, 256 and space are malformed", async () => {
    expect((await postHandoff(t, { idempotencyKey: "!" })).status).toBe(201);
    expect((await postHandoff(t, { idempotencyKey: "~".repeat(255) })).status).toBe(201);
    for (const key of ["", "k".repeat(256), "a b", "tab\tkey"]) {
      const res = await postHandoff(t, { idempotencyKey: key });
      expect(res.status, JSON.stringify(key)).toBe(422);
      expect(await errorOf(res)).toBe("invalid_payload");
    }
  });

  it("body not JSON", async () => {
    const res = await postHandoff(t, { body: "{not json" });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toBe("invalid_payload");
  });

  it("a zero-length body is an absent body: 422 invalid_payload", async () => {
    const res = await postHandoff(t, { body: "" });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toBe("invalid_payload");
  });
});

describe("step 5: idempotency (contract 3)", () => {
  it("replays the stored 201 with Idempotent-Replayed: true and creates nothing", async () => {
    const body = JSON.stringify(cart());
    const first = await postHandoff(t, { idempotencyKey: "same", body });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstBody = await first.text();
    const again = await postHandoff(t, { idempotencyKey: "same", body });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(firstBody);
    const s = await state(t);
    expect(s.handoffs).toHaveLength(1);
    expect(s.requests.map((r) => r.replayed)).toEqual([false, true]);
  });

  it("same key with other body bytes: 409 idempotency_conflict (even semantically equal JSON)", async () => {
    expect((await postHandoff(t, { idempotencyKey: "k", body: JSON.stringify(cart()) })).status).toBe(201);
    const res = await postHandoff(t, { idempotencyKey: "k", body: JSON.stringify(cart(), null, 2) });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toBe("idempotency_conflict");
  });

  it("keys are per client", async () => {
    expect((await postHandoff(t, { idempotencyKey: "k" })).status).toBe(201);
    const other = await postHandoff(t, { idempotencyKey: "k", clientId: "other-client", secret: "whsec-other-0001" });
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a 4xx leaves the key unused: it may then be sent with another body", async () => {
    expect((await postHandoff(t, { idempotencyKey: "k", body: "{}" })).status).toBe(422);
    const res = await postHandoff(t, { idempotencyKey: "k" });
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  it("same key while the first request is in flight: 409", async () => {
    // Long enough for the concurrent retry to land inside it, even on a busy machine.
    expect((await addFault(t, { path: "/api/v1/cart-handoffs", delay_ms: 1000 })).status).toBe(201);
    const body = JSON.stringify(cart());
    const slow = postHandoff(t, { idempotencyKey: "inflight", body });
    await new Promise((r) => setTimeout(r, 150));
    const concurrent = await postHandoff(t, { idempotencyKey: "inflight", body });
    expect(concurrent.status).toBe(409);
    expect(await errorOf(concurrent)).toBe("idempotency_conflict");
    expect((await slow).status).toBe(201);
    const after = await postHandoff(t, { idempotencyKey: "inflight", body });
    expect(after.headers.get("idempotent-replayed")).toBe("true");
  });

  it("keys are kept 24 h", async () => {
    const body = JSON.stringify(cart());
    expect((await postHandoff(t, { idempotencyKey: "day", body })).status).toBe(201);
    t.advance(24 * 3600 - 1);
    expect((await postHandoff(t, { idempotencyKey: "day", body })).headers.get("idempotent-replayed")).toBe("true");
    t.advance(2);
    const fresh = await postHandoff(t, { idempotencyKey: "day", body });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
  });

  it("an empty body is checked against the key (step 5) before the schema (step 6)", async () => {
    expect((await postHandoff(t, { idempotencyKey: "k-empty" })).status).toBe(201);
    const res = await postHandoff(t, { idempotencyKey: "k-empty", body: "" });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toBe("idempotency_conflict");
  });

  it("idempotency (step 5) comes before the schema (step 6)", async () => {
    expect((await postHandoff(t, { idempotencyKey: "k" })).status).toBe(201);
    const res = await postHandoff(t, { idempotencyKey: "k", body: "{}" });
    expect(res.status).toBe(409);
  });
});

describe("step 6: CartHandoffRequest schema", () => {
  const expectStatus = async (body: unknown, status: number) => {
    const res = await postHandoff(t, { body });
    expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(status);
    if (status === 422) {
      const json = (await res.json()) as { error: string; message?: string };
      expect(json.error).toBe("invalid_payload");
      expect(typeof json.message).toBe("string");
    }
  };

  it("lines: 1 and 200 pass, 0 and 201 fail", async () => {
    await expectStatus(cart(1), 201);
    await expectStatus(cart(200), 201);
    await expectStatus(cart(0), 422);
    await expectStatus(cart(201), 422);
  });

  it("expires_in_seconds: 60 and 604800 pass, 59, 604801 and 60.5 fail; expires_at follows", async () => {
    await expectStatus(cart(1, { expires_in_seconds: 59 }), 422);
    await expectStatus(cart(1, { expires_in_seconds: 604801 }), 422);
    await expectStatus(cart(1, { expires_in_seconds: 60.5 }), 422);
    await expectStatus(cart(1, { expires_in_seconds: "60" }), 422);
    const res = await postHandoff(t, { body: cart(1, { expires_in_seconds: 60 }) });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { expires_at: string }).expires_at).toBe(
      new Date(t.clock.now + 60_000).toISOString(),
    );
    await expectStatus(cart(1, { expires_in_seconds: 604800 }), 201);
  });

  it("required fields", async () => {
    for (const field of ["external_cart_id", "cart_reference", "lines"]) {
      const body: Record<string, unknown> = cart();
      delete body[field];
      await expectStatus(body, 422);
    }
    for (const field of ["external_line_id", "title", "quantity"]) {
      const body = cart();
      delete (body.lines[0] as Record<string, unknown>)[field];
      await expectStatus(body, 422);
    }
  });

  it("no other properties at any level", async () => {
    await expectStatus(cart(1, { extra: 1 }), 422);
    const body = cart();
    (body.lines[0] as Record<string, unknown>).extra = 1;
    await expectStatus(body, 422);
  });

  it("quantity must be > 0 (0.5 passes, 0 and -1 fail); unit_price_minor is an integer", async () => {
    const withLine = (line: Record<string, unknown>) => ({
      ...cart(0),
      lines: [{ external_line_id: "l", title: "t", quantity: 1, ...line }],
    });
    await expectStatus(withLine({ quantity: 0.5 }), 201);
    await expectStatus(withLine({ quantity: 0 }), 422);
    await expectStatus(withLine({ quantity: -1 }), 422);
    await expectStatus(withLine({ quantity: "1" }), 422);
    await expectStatus(withLine({ unit_price_minor: 1250 }), 201);
    await expectStatus(withLine({ unit_price_minor: -5 }), 201);
    await expectStatus(withLine({ unit_price_minor: 12.5 }), 422);
    // currency has no format: any string, including 2 and 4 characters and empty.
    await expectStatus(withLine({ currency: "EU" }), 201);
    await expectStatus(withLine({ currency: "EURO" }), 201);
    await expectStatus(withLine({ currency: "" }), 201);
    await expectStatus(withLine({ currency: 978 }), 422);
    await expectStatus(withLine({ external_product_id: "p", merchant_sku: "" }), 201);
  });

  it("return_url must be a URI with a scheme; empty strings are valid where nothing is stated", async () => {
    await expectStatus(cart(1, { return_url: "https://shop.example/cart?x=1" }), 201);
    await expectStatus(cart(1, { return_url: "/cart" }), 422);
    await expectStatus(cart(1, { return_url: "" }), 422);
    await expectStatus({ ...cart(), external_cart_id: "", cart_reference: "" }, 201);
  });

  it("non-object JSON bodies fail the schema", async () => {
    await expectStatus("null", 422);
    await expectStatus("[]", 422);
    await expectStatus('"x"', 422);
  });
});

describe("413 and the order of checks", () => {
  it("bodies over 1 MiB get 413 payload_too_large before the signature is even looked at", async () => {
    const res = await fetch(`${t.url}/api/v1/cart-handoffs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(1024 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toBe("payload_too_large");
  });

  it("exactly 1 MiB is not too large (it reaches the other checks)", async () => {
    const base = JSON.stringify(cart());
    const body = base.slice(0, -1) + " ".repeat(1024 * 1024 - base.length) + "}";
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const res = await postHandoff(t, { body });
    expect(res.status).toBe(201);
  });

  it("bad signature (401) wins over an invalid body; the request is logged", async () => {
    const res = await postHandoff(t, { signature: "v1=00", body: "{}", contentType: "text/plain" });
    expect(res.status).toBe(401);
    const s = await state(t);
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]).toMatchObject({
      method: "POST",
      path: "/api/v1/cart-handoffs",
      status: 401,
      error: "invalid_signature",
    });
  });

  it("GET on the endpoint is 405", async () => {
    const res = await fetch(`${t.url}/api/v1/cart-handoffs`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("signing secret rotation", () => {
  it("the previous secret stays valid for the grace period (24 h default), then only the new one works", async () => {
    const r = await start();
    try {
      const rot = await fetch(`${r.url}/_emulator/clients/sandbox-client/rotate-signing-secret`, { method: "POST" });
      expect(rot.status).toBe(200);
      const { signing_secret } = (await rot.json()) as { signing_secret: string };
      expect(signing_secret).not.toBe("whsec-test-0001");
      expect((await postHandoff(r, { secret: signing_secret })).status).toBe(201);
      expect((await postHandoff(r, { secret: "whsec-test-0001" })).status).toBe(201);
      r.advance(86400 - 1);
      expect((await postHandoff(r, { secret: "whsec-test-0001" })).status).toBe(201);
      r.advance(1);
      expect((await postHandoff(r, { secret: "whsec-test-0001" })).status).toBe(401);
      expect((await postHandoff(r, { secret: signing_secret })).status).toBe(201);

      // A second rotation drops the oldest at once and keeps only the previous current one in grace.
      const second = (await (
        await fetch(`${r.url}/_emulator/clients/sandbox-client/rotate-signing-secret`, { method: "POST" })
      ).json()) as { signing_secret: string };
      const third = (await (
        await fetch(`${r.url}/_emulator/clients/sandbox-client/rotate-signing-secret`, { method: "POST" })
      ).json()) as { signing_secret: string };
      expect((await postHandoff(r, { secret: signing_secret })).status).toBe(401);
      expect((await postHandoff(r, { secret: second.signing_secret })).status).toBe(201);
      expect((await postHandoff(r, { secret: third.signing_secret })).status).toBe(201);

      // Reset keeps clients and their current secrets.
      await fetch(`${r.url}/_emulator/reset`, { method: "POST" });
      expect((await postHandoff(r, { secret: third.signing_secret })).status).toBe(201);
    } finally {
      await r.close();
    }
  });

  it("honours signing_secret_grace_seconds and two configured secrets", async () => {
    const config = structuredClone(TEST_CONFIG);
    config.signing_secret_grace_seconds = 60;
    config.clients[0].signing_secrets = ["whsec-old", "whsec-new"];
    const r = await start(config);
    try {
      expect((await postHandoff(r, { secret: "whsec-old" })).status).toBe(201);
      expect((await postHandoff(r, { secret: "whsec-new" })).status).toBe(201);
      const rot = await fetch(`${r.url}/_emulator/clients/sandbox-client/rotate-signing-secret`, { method: "POST" });
      const { signing_secret } = (await rot.json()) as { signing_secret: string };
      expect((await postHandoff(r, { secret: "whsec-old" })).status).toBe(401);
      r.advance(59);
      expect((await postHandoff(r, { secret: "whsec-new" })).status).toBe(201);
      r.advance(1);
      expect((await postHandoff(r, { secret: "whsec-new" })).status).toBe(401);
      expect((await postHandoff(r, { secret: signing_secret })).status).toBe(201);
    } finally {
      await r.close();
    }
  });

  it("unknown client: 404", async () => {
    const res = await fetch(`${t.url}/_emulator/clients/nobody/rotate-signing-secret`, { method: "POST" });
    expect(res.status).toBe(404);
  });
});
