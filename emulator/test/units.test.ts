// Small pure pieces, where HTTP cannot reach every input (non-ASCII header bytes, sub-second clocks).
import { describe, expect, it } from "vitest";
import { ExpiringMap } from "../expiring-map";
import { escapeHtml, isValidIdempotencyKey, parseJsonBody } from "../http";
import { isValidNonce, timestampInWindow, v1Signatures } from "../signature";

describe("Idempotency-Key format (contract 3)", () => {
  it("accepts 1 to 255 characters of 0x21..0x7E only", () => {
    expect(isValidIdempotencyKey("!")).toBe(true);
    expect(isValidIdempotencyKey("~".repeat(255))).toBe(true);
    for (const bad of [undefined, "", "k".repeat(256), "a b", "k\u007f", "k\u00e9", "k\u20ac", "k\t"]) {
      expect(isValidIdempotencyKey(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("nonce and timestamp (contract 1)", () => {
  it("nonce alphabet and length", () => {
    expect(isValidNonce("4f2c8d1e-9a7b-4c3d-8e5f-0a1b2c3d4e5f")).toBe(true);
    expect(isValidNonce("a".repeat(16))).toBe(true);
    expect(isValidNonce("a".repeat(15))).toBe(false);
    expect(isValidNonce("ä".repeat(16))).toBe(false);
  });

  it("compares whole seconds of the service clock, ±300 inclusive", () => {
    const now = 1795000000_999; // .999 s into the second: still second 1795000000
    expect(timestampInWindow("1794999700", now)).toBe(true);
    expect(timestampInWindow("1795000300", now)).toBe(true);
    expect(timestampInWindow("1794999699", now)).toBe(false);
    expect(timestampInWindow("1795000301", now)).toBe(false);
    expect(timestampInWindow("9".repeat(400), now)).toBe(false);
  });

  it("keeps only v1 entries of the signature header", () => {
    expect(v1Signatures("v1=aa, v2=bb,v1=cc ,t=1")).toEqual(["aa", "cc"]);
    expect(v1Signatures("V1=aa")).toEqual([]);
  });
});

describe("helpers", () => {
  it("expiring map forgets at the instant and prunes from the head", () => {
    const m = new ExpiringMap<number>();
    m.set("a", 1, 100, 0);
    m.set("b", 2, 200, 50);
    expect(m.get("a", 99)).toBe(1);
    expect(m.get("a", 100)).toBeUndefined();
    m.set("c", 3, 400, 300); // prunes b
    expect(m.peek("b")).toBeUndefined();
    expect(m.get("c", 399)).toBe(3);
  });

  it("JSON bodies: empty is absent, invalid UTF-8 and bad JSON are not JSON", () => {
    expect(parseJsonBody(Buffer.alloc(0))).toEqual({ ok: true, value: undefined });
    expect(parseJsonBody(Buffer.from('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonBody(Buffer.from([0x22, 0xff, 0x22]))).toEqual({ ok: false });
    expect(parseJsonBody(Buffer.from("{"))).toEqual({ ok: false });
  });

  it("escapes HTML", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});
