import { describe, expect, it } from "vitest";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, parseRetryAfter } from "~/service/client.server";
import { withRetries } from "~/service/retry.server";
import { failure, success } from "~/service/outcomes.server";
import { fakeTime } from "./support";

describe("backoff", () => {
  it("is full jitter: uniform in [0, min(30 s, 1 s * 2^n))", () => {
    const p = DEFAULT_RETRY_POLICY;
    expect(p.baseDelayMs).toBe(1000);
    expect(p.maxDelayMs).toBe(30_000);
    expect(backoffDelayMs(0, () => 0, p)).toBe(0);
    expect(backoffDelayMs(0, () => 0.999, p)).toBe(999);
    expect(backoffDelayMs(3, () => 0.5, p)).toBe(4000);
    expect(backoffDelayMs(10, () => 0.999999, p)).toBe(29_999);
    expect(backoffDelayMs(40, () => 0.5, p)).toBe(15_000);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2026-11-22T10:00:00Z");
  it("reads delta-seconds", () => {
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
  });
  it("reads an HTTP-date, and a past date as now", () => {
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0);
  });
  it("ignores what it cannot read (the caller then backs off)", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("-3", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});

describe("withRetries budget", () => {
  const deps = (maxAttempts: number, maxElapsedMs = 60_000) => {
    const time = fakeTime();
    return {
      time,
      deps: { ...time, random: () => 1 - 1e-9, retry: { ...DEFAULT_RETRY_POLICY, maxAttempts, maxElapsedMs } },
    };
  };

  it("stops after maxAttempts and says how long to wait", async () => {
    const { time, deps: d } = deps(3);
    let n = 0;
    const out = await withRetries(d, async () => (n++, failure("server_error", { status: 503 }, 1)));
    expect(n).toBe(3);
    expect(out).toMatchObject({ ok: false, kind: "server_error", retryable: true, attempts: 3 });
    expect(time.sleeps).toEqual([999, 1999]);
    expect(out.ok || out.retryAfterMs).toBe(3999);
  });

  it("stops before a wait that would pass maxElapsedMs", async () => {
    const { time, deps: d } = deps(100, 10_000);
    const out = await withRetries(d, async () => failure("timeout", {}, 1));
    // waits 999 + 1999 + 3999 = 6997 ms; the next (7999) would end past 10 s
    expect(time.sleeps).toEqual([999, 1999, 3999]);
    expect(out).toMatchObject({ kind: "timeout", attempts: 4 });
  });

  it("does not retry final failures", async () => {
    const { time, deps: d } = deps(5);
    for (const kind of [
      "invalid_signature",
      "idempotency_conflict",
      "invalid_payload",
      "insufficient_scope",
    ] as const) {
      let n = 0;
      const out = await withRetries(d, async () => (n++, failure(kind, {}, 1)));
      expect(n).toBe(1);
      expect(out.ok).toBe(false);
    }
    expect(time.sleeps).toEqual([]);
  });

  it("waits Retry-After for a 429 rather than backing off", async () => {
    const { time, deps: d } = deps(5);
    const answers = [failure("rate_limited", { status: 429, retryAfterMs: 7000 }, 1), success({}, 201, false)];
    const out = await withRetries(d, async () => answers.shift()!);
    expect(out).toMatchObject({ ok: true, attempts: 2 });
    expect(time.sleeps).toEqual([7000]);
  });
});
