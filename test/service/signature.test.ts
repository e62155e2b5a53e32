import { describe, expect, it } from "vitest";
import { createCartHandoff, sha256Hex, signatureHeader, signedString } from "~/service/client.server";
import { controlled, json, scriptedFetch, SETTINGS } from "./support";

// The service's reference test vector for the cart handoff signature (docs/service.md, "Cart handoff signature"):
// every implementation must reproduce it.
const VECTOR = {
  secret: "whsec-test-0001",
  clientId: "sandbox-client",
  timestamp: 1795000000,
  nonce: "4f2c8d1e-9a7b-4c3d-8e5f-0a1b2c3d4e5f",
  idempotencyKey: "handoff-cart-1001",
  body: '{"external_cart_id":"cart-1001","cart_reference":"r-1","lines":[{"external_line_id":"l1","title":"Blue mug","quantity":2,"unit_price_minor":1250,"currency":"EUR"}]}',
};

describe("cart handoff signature", () => {
  const input = {
    method: "POST",
    pathWithQuery: "/api/v1/cart-handoffs",
    clientId: VECTOR.clientId,
    timestamp: VECTOR.timestamp,
    nonce: VECTOR.nonce,
    idempotencyKey: VECTOR.idempotencyKey,
    body: new TextEncoder().encode(VECTOR.body),
  };

  it("reproduces the contract's test vector", () => {
    expect(sha256Hex(input.body)).toBe("c495c4f3bafbdb30c59070ca44ead2136e9e0cd24b924905ce5358a2f74c1d52");
    expect(signedString(input)).toBe(
      [
        "v1",
        "POST",
        "/api/v1/cart-handoffs",
        "sandbox-client",
        "1795000000",
        VECTOR.nonce,
        "handoff-cart-1001",
        "c495c4f3bafbdb30c59070ca44ead2136e9e0cd24b924905ce5358a2f74c1d52",
      ].join("\n"),
    );
    expect(signatureHeader(VECTOR.secret, input)).toBe(
      "v1=52476d4d4c91bff37e27e810e11d680470a951408687b7f6a2b67e3eb7fec10a",
    );
  });

  it("signs an absent Idempotency-Key as an empty line and an empty body as the hash of zero bytes", () => {
    const s = signedString({ ...input, idempotencyKey: undefined, body: new Uint8Array() });
    expect(s.split("\n")).toHaveLength(8);
    expect(s.split("\n")[6]).toBe("");
    expect(s.split("\n")[7]).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("the client sends exactly the vector's headers when given the vector's clock, nonce and body", async () => {
    const { calls, fetch } = scriptedFetch([
      json(201, {
        handoff_id: "5d3c0c39-2d0c-4f4e-9a59-0e0c4b8c6a11",
        claim_url: "https://x/claim/1",
        expires_at: "2026-11-23T00:00:00Z",
      }),
    ]);
    const { deps } = controlled(fetch, { now: () => VECTOR.timestamp * 1000 + 999, newNonce: () => VECTOR.nonce });
    const out = await createCartHandoff({ ...SETTINGS, signingSecret: VECTOR.secret }, JSON.parse(VECTOR.body), {
      idempotencyKey: VECTOR.idempotencyKey,
      deps,
    });
    expect(out.ok).toBe(true);
    const h = calls[0].headers;
    expect(new TextDecoder().decode(calls[0].body)).toBe(VECTOR.body);
    expect(h.get("x-service-client-id")).toBe("sandbox-client");
    expect(h.get("x-service-timestamp")).toBe("1795000000");
    expect(h.get("x-service-nonce")).toBe(VECTOR.nonce);
    expect(h.get("idempotency-key")).toBe(VECTOR.idempotencyKey);
    expect(h.get("content-type")).toBe("application/json");
    expect(h.get("x-service-signature")).toBe("v1=52476d4d4c91bff37e27e810e11d680470a951408687b7f6a2b67e3eb7fec10a");
    expect(calls[0].url).toBe("https://sandbox.example.test/api/v1/cart-handoffs");
  });
});
