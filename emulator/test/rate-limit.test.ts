// Rate limits (docs/service.md, "Rate limits and Retry-After"): leaky bucket per client, shared by the service
// endpoints, headers on 429.
import { afterEach, describe, expect, it } from "vitest";
import {
  errorOf,
  getTokens,
  order,
  postHandoff,
  postImport,
  shipment,
  start,
  TEST_CONFIG,
  type TestEmulator,
} from "./helpers";

let t: TestEmulator | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const withLimit = (capacity?: number, leak?: number) => {
  const config = structuredClone(TEST_CONFIG);
  if (capacity === undefined) delete config.rate_limit;
  else config.rate_limit = { capacity, leak_per_second: leak ?? 2 };
  return start(config);
};

describe("leaky bucket", () => {
  it("default: 40 requests pass, the 41st gets 429 with the exact headers", async () => {
    t = await withLimit();
    expect(t.em.config.rate_limit).toEqual({ capacity: 40, leak_per_second: 2 });
    const tokens = await getTokens(t);
    for (let i = 0; i < 40; i++) {
      expect((await postImport(t, "orders", order(`o${i}`), { token: tokens.access_token })).status).toBe(201);
    }
    const res = await postImport(t, "orders", order("o40"), { token: tokens.access_token });
    expect(res.status).toBe(429);
    expect(await errorOf(res)).toBe("rate_limited");
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=40;w=20');
    expect(res.headers.get("ratelimit")).toBe('"default";r=0;t=1');
    // Leaks 2 per second: after 0.5 s one more fits, then it is full again.
    t.advance(0.5);
    expect((await postImport(t, "orders", order("o41"), { token: tokens.access_token })).status).toBe(201);
    expect((await postImport(t, "orders", order("o42"), { token: tokens.access_token })).status).toBe(429);
    // After 20 s the bucket is empty: 40 fit again.
    t.advance(20);
    for (let i = 0; i < 40; i++) {
      expect((await postImport(t, "orders", order(`p${i}`), { token: tokens.access_token })).status).toBe(201);
    }
  });

  it("Retry-After counts whole seconds until one request fits; configurable numbers show in the policy", async () => {
    t = await withLimit(3, 0.5);
    const tokens = await getTokens(t);
    for (let i = 0; i < 3; i++) await postImport(t, "orders", order(), { token: tokens.access_token });
    const res = await postImport(t, "orders", order(), { token: tokens.access_token });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=3;w=6');
    expect(res.headers.get("ratelimit")).toBe('"default";r=0;t=2');
    t.advance(1.5);
    const later = await postImport(t, "orders", order(), { token: tokens.access_token });
    expect(later.headers.get("retry-after")).toBe("1");
  });

  it("one bucket per client, shared by handoffs, orders and shipments", async () => {
    t = await withLimit(4, 1);
    const tokens = await getTokens(t);
    const other = await getTokens(t, { clientId: "other-client" });
    expect((await postImport(t, "orders", order(), { token: tokens.access_token })).status).toBe(201);
    expect((await postImport(t, "shipments", shipment(), { token: tokens.access_token })).status).toBe(201);
    const handoff = await postHandoff(t);
    expect(handoff.status).toBe(201);
    // An accepted handoff carries the budget too, as imports do.
    expect(handoff.headers.get("ratelimit-policy")).toBe('"default";q=4;w=4');
    expect(handoff.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
    expect((await postImport(t, "orders", order(), { token: tokens.access_token })).status).toBe(201);
    const limitedHandoff = await postHandoff(t);
    expect(limitedHandoff.status).toBe(429);
    expect(await errorOf(limitedHandoff)).toBe("rate_limited");
    expect((await postImport(t, "shipments", shipment(), { token: tokens.access_token })).status).toBe(429);
    // The other client has its own bucket, for imports and handoffs alike.
    expect((await postImport(t, "orders", order(), { token: other.access_token })).status).toBe(201);
    expect((await postHandoff(t, { clientId: "other-client", secret: "whsec-other-0001" })).status).toBe(201);
  });

  it("only authenticated (and, for imports, in-scope) requests use it up; OAuth endpoints are not limited", async () => {
    t = await withLimit(2, 1);
    const tokens = await getTokens(t, { scope: "orders:write" });
    for (let i = 0; i < 5; i++) {
      expect((await postImport(t, "orders", order(), { token: "bad" })).status).toBe(401);
      expect((await postImport(t, "shipments", shipment(), { token: tokens.access_token })).status).toBe(403);
      expect((await postHandoff(t, { secret: "wrong" })).status).toBe(401);
      await getTokens(t); // authorize + token: not limited
    }
    expect((await postImport(t, "orders", order(), { token: tokens.access_token })).status).toBe(201);
    // A request refused at step 4 (400) has used the bucket: it comes after the rate limit.
    expect((await postImport(t, "orders", order(), { token: tokens.access_token, idempotencyKey: null })).status).toBe(
      400,
    );
    expect((await postImport(t, "orders", order(), { token: tokens.access_token })).status).toBe(429);
  });

  it("429 comes after 401 and before the nonce check; a 429'd nonce is not recorded", async () => {
    t = await withLimit(1, 1);
    expect((await postHandoff(t)).status).toBe(201);
    expect((await postHandoff(t, { secret: "wrong" })).status).toBe(401);
    const n = "nonce-limited-000001";
    expect((await postHandoff(t, { nonce: n })).status).toBe(429);
    t.advance(1);
    expect((await postHandoff(t, { nonce: n })).status).toBe(201);
  });
});
