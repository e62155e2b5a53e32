// The rate scheduler: paces each service client to the budget its answers announce, takes shops in turn, and
// still waits out a bare Retry-After.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FIRST_WAVE, RateScheduler } from "~/service/client.server";

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-11-27T12:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

const answer = (headers: Record<string, string>) => new Headers(headers);
const POLICY_10_PER_S = { "ratelimit-policy": '"default";q=10;w=1' };

/** Asks `count` slots for `lane` and records when (fake ms since start) each was granted. */
function ask(
  scheduler: RateScheduler,
  client: string,
  lane: string,
  count: number,
  log: { lane: string; at: number }[],
) {
  const start = Date.now();
  return Array.from({ length: count }, () =>
    scheduler.acquire(client, lane).then(() => log.push({ lane, at: Date.now() - start })),
  );
}

describe("rate scheduler", () => {
  it("before the service has said anything, sends a first wave, then the contract's rate until an answer says more", async () => {
    const scheduler = new RateScheduler({ headroom: 0 });
    const log: { lane: string; at: number }[] = [];
    const granted = ask(scheduler, "svc A", "shop-1", 100, log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log.length).toBe(FIRST_WAVE); // several at once, not one: no burst the service has not announced
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.length).toBe(FIRST_WAVE + 2); // the contract's default rate, 2 a second, while no answer comes back
    // The first answer announces 10 a second with room for 3 more: the rest go at that pace, never faster.
    scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=3;t=0' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(log.length).toBe(FIRST_WAVE + 2 + 3);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.length).toBe(FIRST_WAVE + 2 + 3 + 10);
    // An answer without a policy leaves nothing to hold to.
    const other: { lane: string; at: number }[] = [];
    const free = ask(scheduler, "svc B", "shop-1", 20, other);
    scheduler.observe("svc B", 201, answer({}));
    await Promise.all(free);
    expect(other.length).toBe(20);
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(granted);
  });

  it("holds each client to the budget its RateLimit headers announce, independently of other clients", async () => {
    const scheduler = new RateScheduler({ headroom: 0 });
    // The service said: 10 per second, and the bucket is full right now.
    scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=0;t=1' }));
    const a: { lane: string; at: number }[] = [];
    const b: { lane: string; at: number }[] = [];
    scheduler.observe("svc B", 201, answer({})); // the other client's service announces no limit
    const granted = [...ask(scheduler, "svc A", "shop-1", 20, a), ...ask(scheduler, "svc B", "shop-1", 20, b)];
    await vi.advanceTimersByTimeAsync(2_100);
    await Promise.all(granted);
    expect(b.every((g) => g.at === 0)).toBe(true); // the other client knows no limit
    // 10 per second: the first after 100 ms, the 20th after 2 s; never faster.
    expect(a[0].at).toBeGreaterThanOrEqual(100);
    expect(a[19].at).toBeGreaterThanOrEqual(2_000);
    expect(a[19].at).toBeLessThanOrEqual(2_100);
    for (let i = 1; i < a.length; i++) expect(a[i].at - a[i - 1].at).toBeGreaterThanOrEqual(99);
  });

  it("believes the service's remaining count over its own when the service counted more (another process)", async () => {
    const scheduler = new RateScheduler({ headroom: 0 });
    scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=5;t=0' }));
    const log: { lane: string; at: number }[] = [];
    const granted = ask(scheduler, "svc A", "shop-1", 6, log);
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all(granted);
    expect(log.slice(0, 5).every((g) => g.at === 0)).toBe(true);
    expect(log[5].at).toBeGreaterThanOrEqual(100);
  });

  it("reads a slow answer's remaining count as of the request's send, plus the slots taken since", async () => {
    const scheduler = new RateScheduler({ headroom: 0 });
    scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=10;t=0' }));
    await Promise.all(ask(scheduler, "svc A", "shop-1", 10, [])); // the bucket full
    // A request sent now is answered 2 s later: the service counted it with the bucket full (r=0), and has leaked
    // 20 since. Read as of the answer, it said "full" again, and every slow answer held the pace to a trickle.
    const sent = scheduler.mark("svc A");
    await vi.advanceTimersByTimeAsync(2_000);
    scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=0;t=1' }), sent);
    const after: { lane: string; at: number }[] = [];
    const free = ask(scheduler, "svc A", "shop-1", 10, after);
    await vi.advanceTimersByTimeAsync(0);
    expect(after.map((g) => g.at)).toEqual(Array(10).fill(0));
    await Promise.all(free);

    // Another process filled 8 of the bucket when this one's request was counted (r=2), and this one has taken 5
    // slots since: the service's bucket is full now, though this process's model says 5.
    await vi.advanceTimersByTimeAsync(2_000);
    const other = scheduler.mark("svc A");
    await Promise.all(ask(scheduler, "svc A", "shop-1", 5, []));
    scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=2;t=0' }), other);
    const next: { lane: string; at: number }[] = [];
    const waiting = ask(scheduler, "svc A", "shop-1", 1, next);
    await vi.advanceTimersByTimeAsync(150);
    await Promise.all(waiting);
    expect(next[0].at).toBeGreaterThanOrEqual(100); // not at once: 8 + 5 is past the bucket
  });

  it("takes shops in turn: a backlog of one shop does not hold back another shop's request", async () => {
    const scheduler = new RateScheduler({ headroom: 0 });
    scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=0;t=1' }));
    const log: { lane: string; at: number }[] = [];
    const backlog = ask(scheduler, "svc A", "big-shop", 50, log);
    await vi.advanceTimersByTimeAsync(350); // three of the backlog went out
    const small = ask(scheduler, "svc A", "small-shop", 1, log);
    await vi.advanceTimersByTimeAsync(5_100);
    await Promise.all([...backlog, ...small]);
    const order = log.map((g) => g.lane);
    // Within one turn: at most one more of the backlog (the slot already promised to it) goes first.
    expect(order.indexOf("small-shop")).toBeGreaterThanOrEqual(3);
    expect(order.indexOf("small-shop")).toBeLessThanOrEqual(4);
    expect(scheduler.waiting("svc A")).toEqual({});
  });

  it("waits out Retry-After on a 429 that carries no RateLimit headers", async () => {
    const scheduler = new RateScheduler();
    scheduler.observe("svc A", 429, answer({ "retry-after": "3" }));
    const log: { lane: string; at: number }[] = [];
    const granted = ask(scheduler, "svc A", "shop-1", 2, log);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all(granted);
    expect(log.map((g) => g.at)).toEqual([3_000, 3_000]); // no budget known: both go once the wait is over
  });

  it("on a 429 with headers, waits for the announced time and then paces at the announced rate", async () => {
    const scheduler = new RateScheduler({ headroom: 0 });
    scheduler.observe("svc A", 429, answer({ ...POLICY_10_PER_S, "retry-after": "1", ratelimit: '"default";r=0;t=1' }));
    const log: { lane: string; at: number }[] = [];
    const granted = ask(scheduler, "svc A", "shop-1", 12, log);
    await vi.advanceTimersByTimeAsync(1_400);
    await Promise.all(granted);
    // Full at the 429, leaking 10/s: after the second it waited, 10 fit, then one per 100 ms.
    expect(log.slice(0, 10).every((g) => g.at === 1_000)).toBe(true);
    expect(log[10].at).toBeGreaterThanOrEqual(1_100);
    expect(log[11].at).toBeGreaterThanOrEqual(1_200);
  });

  describe("interactive requests (Continue cart)", () => {
    it("get a slot now or a refusal with the wait, never a place in a queue; the budget is the same", async () => {
      const scheduler = new RateScheduler({ headroom: 0 });
      scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=3;t=0' }));
      const answers = Array.from({ length: 5 }, () => scheduler.tryAcquire("svc A"));
      expect(answers.slice(0, 3)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
      expect(answers[3]).toEqual({ ok: false, retryAfterMs: 100 });
      expect(scheduler.waiting("svc A")).toEqual({});
      await vi.advanceTimersByTimeAsync(100);
      expect(scheduler.tryAcquire("svc A")).toEqual({ ok: true });
    });

    it("are paced by the contract's budget (40, 2 a second) before the service announces one", () => {
      const scheduler = new RateScheduler(); // one request of headroom: 39
      const granted = Array.from({ length: 50 }, () => scheduler.tryAcquire("svc A")).filter((a) => a.ok);
      expect(granted).toHaveLength(39);
      expect(scheduler.tryAcquire("svc A")).toEqual({ ok: false, retryAfterMs: 500 });
    });

    it("honour a 429's Retry-After", async () => {
      const scheduler = new RateScheduler();
      scheduler.observe("svc A", 429, answer({ "retry-after": "3" }));
      expect(scheduler.tryAcquire("svc A")).toEqual({ ok: false, retryAfterMs: 3_000 });
      await vi.advanceTimersByTimeAsync(3_000);
      expect(scheduler.tryAcquire("svc A").ok).toBe(true);
    });

    it("a flood takes at most half the rate while imports queue, and the imports still drain at the rest", async () => {
      const scheduler = new RateScheduler({ headroom: 0 });
      scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=0;t=1' }));
      const log: { lane: string; at: number }[] = [];
      const backlog = ask(scheduler, "svc A", "shop-1", 40, log);
      let interactive = 0;
      // A shopper's click every 10 ms for 4 s: far more than the whole budget.
      for (let t = 0; t < 4_000; t += 10) {
        if (scheduler.tryAcquire("svc A").ok) interactive += 1;
        await vi.advanceTimersByTimeAsync(10);
      }
      const imported = log.length;
      await vi.advanceTimersByTimeAsync(10_000);
      await Promise.all(backlog);
      // 4 s at 10 a second: 40 slots. Shoppers got some (not starved), at most half plus their reserve of 3.
      expect(interactive).toBeGreaterThanOrEqual(10);
      expect(interactive).toBeLessThanOrEqual(20 + 3);
      expect(imported).toBeGreaterThanOrEqual(17);
      expect(imported + interactive).toBeLessThanOrEqual(41);
    });

    it("without interactive traffic, queued requests keep the whole bucket", async () => {
      const scheduler = new RateScheduler({ headroom: 0 });
      scheduler.observe("svc A", 201, answer({ ...POLICY_10_PER_S, ratelimit: '"default";r=10;t=0' }));
      const log: { lane: string; at: number }[] = [];
      await Promise.all(ask(scheduler, "svc A", "shop-1", 10, log));
      expect(log.every((g) => g.at === 0)).toBe(true);
    });
  });
});
