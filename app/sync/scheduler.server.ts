// Sends to the service at the rate it allows, fairly between shops.
//
// The service gives each client (client id at one base URL) a leaky bucket and says so in its answers:
// `RateLimit-Policy: "default";q=40;w=20` (40 requests, refilled over 20 s: 2/s) and `RateLimit: "default";r=5;t=3`
// (5 left; t seconds until one more), on 429 at least, on every answer when the service is generous. Once the policy is
// known, requests are held here until the modelled bucket has room, so a backlog drains at the allowed rate instead of
// bouncing off 429s; `r` corrects the model (another process may share the client). A 429 blocks the client for its
// `Retry-After` (or `t`), also when no RateLimit header came with it. Before anything is known nothing is held.
//
// Waiting requests queue per shop; a free slot goes to the next shop in turn, so one shop's backfill of thousands of
// orders takes every other turn at most, and another shop's new order waits for one turn, not for the backlog.
//
// Interactive requests (a shopper waiting on "Continue cart") share the same budget but never queue: `tryAcquire`
// grants a slot now or refuses at once with the wait, so a flood of clicks can neither pile up here nor push the
// client into 429s (the ceiling is the same). Neither side starves the other:
// - while interactive requests were asked for within the last window (capacity / rate), queued requests keep out
//   of the top `interactiveReserve` of the bucket, so a shopper finds a slot at once even during a backfill;
// - while queued requests wait, interactive ones get at most `interactiveShare` of the rate (their own small
//   token bucket), so the queue drains at no less than the rest of it, whatever the flood. With nothing queued,
//   interactive requests may use the whole rate; with no interactive traffic, the queue uses the whole bucket.
//
// Below the scheduler: the service client's fetch routed through it (scheduledFetch for the worker's imports,
// interactiveSlot for a shopper's click), and the one scheduler of this process (serviceScheduler), with Continue
// cart's way into it (handoffGate). A worker in its own process (`npm run worker`) has its own; the service's
// RateLimit answers correct both models (docs/security.md).
import { interactiveRefused, schedulerWaitSeconds } from "../lib/metrics.server";
import { guardedFetch, policyFromEnv, serviceBaseUrl, type ServiceSettings } from "../service/client.server";

export interface RateSchedulerOptions {
  now?: () => number;
  /** Requests of headroom kept below the bucket's capacity, for clock skew between us and the service. */
  headroom?: number;
  /** Wait after a 429 that says nothing about when to come back. */
  fallbackWaitMs?: number;
  /** Share of the bucket's capacity queued requests leave free while interactive ones are about (default 1/4). */
  interactiveReserve?: number;
  /** Share of the rate interactive requests may take while queued ones wait (default 1/2). */
  interactiveShare?: number;
  /**
   * The budget interactive requests assume until the service announces one: the contract's (40 requests, 2 a
   * second). A service that only announces its budget on a 429 would otherwise see a flood unpaced until then.
   */
  assumedPolicy?: Policy;
}

export interface Policy {
  capacity: number;
  perSecond: number;
}

const CONTRACT_POLICY: Policy = { capacity: 40, perSecond: 2 };

interface ClientState {
  policy?: Policy;
  /** Modelled bucket level at `at`. */
  level: number;
  at: number;
  blockedUntil: number;
  lanes: Map<string, Array<() => void>>;
  /** Round-robin position: the lane served last. */
  turn: string[];
  timer: NodeJS.Timeout | null;
  /** Until when queued requests leave the interactive reserve free (an interactive request was asked for). */
  interactiveUntil: number;
  /** Interactive requests' own bucket (tokens at `interactiveAt`): their share while the queue waits. */
  interactiveTokens: number;
  interactiveAt: number;
}

/** `"default";q=40;w=20` → { capacity 40, 2/s }. Only the first policy item is read; malformed is ignored. */
export function parsePolicy(value: string | null): Policy | undefined {
  const q = value?.match(/;\s*q=(\d+(?:\.\d+)?)/);
  const w = value?.match(/;\s*w=(\d+(?:\.\d+)?)/);
  if (!q || !w) return undefined;
  const capacity = Number(q[1]);
  const window = Number(w[1]);
  if (!(capacity > 0) || !(window > 0) || capacity > 1e6) return undefined;
  return { capacity, perSecond: capacity / window };
}

/** `"default";r=5;t=3` → remaining 5, 3 s. */
export function parseRateLimit(value: string | null): { remaining?: number; resetSeconds?: number } {
  const r = value?.match(/;\s*r=(\d+)/);
  const t = value?.match(/;\s*t=(\d+)/);
  return { remaining: r ? Number(r[1]) : undefined, resetSeconds: t ? Number(t[1]) : undefined };
}

/** Retry-After in delta-seconds or as an HTTP-date; undefined when absent or unreadable. */
function retryAfterMs(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class RateScheduler {
  private readonly clients = new Map<string, ClientState>();
  private readonly now: () => number;
  private readonly headroom: number;
  private readonly fallbackWaitMs: number;
  private readonly reserveShare: number;
  private readonly rateShare: number;
  private readonly assumed: Policy;

  constructor(options: RateSchedulerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.headroom = options.headroom ?? 1;
    this.fallbackWaitMs = options.fallbackWaitMs ?? 1_000;
    this.reserveShare = options.interactiveReserve ?? 0.25;
    this.rateShare = options.interactiveShare ?? 0.5;
    this.assumed = options.assumedPolicy ?? CONTRACT_POLICY;
  }

  /**
   * A slot for one interactive request now, or a refusal with the wait in ms; never queues. A granted slot counts
   * against the budget like any other, and its answer goes to `observe`.
   */
  tryAcquire(client: string): { ok: true } | { ok: false; retryAfterMs: number } {
    const state = this.state(client);
    const now = this.now();
    this.leak(state, now);
    const policy = state.policy ?? this.assumed; // counted from the first interactive request on
    let waitMs = state.blockedUntil - now;
    state.interactiveUntil = now + (policy.capacity / policy.perSecond) * 1000;
    const reserve = this.reserveOf(policy);
    const rate = policy.perSecond * this.rateShare;
    state.interactiveTokens = Math.min(reserve, state.interactiveTokens + ((now - state.interactiveAt) / 1000) * rate);
    state.interactiveAt = now;
    waitMs = Math.max(waitMs, ((state.level + 1 - this.ceilingOf(policy)) / policy.perSecond) * 1000);
    if (state.turn.length > 0) waitMs = Math.max(waitMs, ((1 - state.interactiveTokens) / rate) * 1000);
    if (waitMs > 0) return { ok: false, retryAfterMs: Math.ceil(waitMs) };
    state.level += 1;
    state.interactiveTokens = Math.max(0, state.interactiveTokens - 1);
    return { ok: true };
  }

  /** Resolves when `client` may send one request for `lane` (the shop); that request then counts against the budget. */
  acquire(client: string, lane: string): Promise<void> {
    const state = this.state(client);
    return new Promise<void>((resolve) => {
      const queue = state.lanes.get(lane);
      if (queue) queue.push(resolve);
      else {
        state.lanes.set(lane, [resolve]);
        state.turn.push(lane);
      }
      this.pump(state);
    });
  }

  /** Feeds an answer of the service back: its RateLimit headers, and a 429's wait. */
  observe(client: string, status: number, headers: Headers): void {
    const state = this.state(client);
    const now = this.now();
    this.leak(state, now);
    const policy = parsePolicy(headers.get("ratelimit-policy"));
    if (policy) state.policy = policy;
    const { remaining, resetSeconds } = parseRateLimit(headers.get("ratelimit"));
    if (state.policy && remaining !== undefined) {
      // The service's count is authoritative, but it does not know requests we sent after this one yet.
      state.level = Math.max(state.level, state.policy.capacity - remaining);
    }
    if (status === 429) {
      if (state.policy) state.level = state.policy.capacity;
      const wait =
        retryAfterMs(headers.get("retry-after"), now) ??
        (resetSeconds !== undefined ? resetSeconds * 1000 : this.fallbackWaitMs);
      state.blockedUntil = Math.max(state.blockedUntil, now + wait);
    }
    this.pump(state);
  }

  /** Requests waiting for a slot, per client and shop (for logs and tests). */
  waiting(client: string): Record<string, number> {
    const state = this.clients.get(client);
    return Object.fromEntries([...(state?.lanes ?? [])].map(([lane, queue]) => [lane, queue.length]));
  }

  private state(client: string): ClientState {
    let state = this.clients.get(client);
    if (!state) {
      const now = this.now();
      state = {
        level: 0,
        at: now,
        blockedUntil: 0,
        lanes: new Map(),
        turn: [],
        timer: null,
        interactiveUntil: 0,
        interactiveTokens: 0,
        interactiveAt: now,
      };
      this.clients.set(client, state);
    }
    return state;
  }

  private ceilingOf(policy: Policy): number {
    return Math.max(1, policy.capacity - this.headroom);
  }

  private reserveOf(policy: Policy): number {
    return Math.max(1, Math.round(policy.capacity * this.reserveShare));
  }

  private leak(state: ClientState, now: number) {
    // Before a budget is announced only interactive requests are counted, against the assumed one.
    const policy = state.policy ?? this.assumed;
    state.level = Math.max(0, state.level - ((now - state.at) / 1000) * policy.perSecond);
    state.at = now;
  }

  /** Grants slots while the budget allows, round-robin over shops; otherwise sleeps until the next slot. */
  private pump(state: ClientState) {
    if (state.timer) return; // already waiting for the next slot
    for (;;) {
      const lane = state.turn[0];
      if (lane === undefined) return;
      const now = this.now();
      this.leak(state, now);
      let waitMs = state.blockedUntil - now;
      if (state.policy) {
        // Queued requests leave the interactive reserve free while shoppers are about (see the top).
        const reserve = now < state.interactiveUntil ? this.reserveOf(state.policy) : 0;
        const ceiling = Math.max(1, this.ceilingOf(state.policy) - reserve);
        waitMs = Math.max(waitMs, ((state.level + 1 - ceiling) / state.policy.perSecond) * 1000);
      }
      if (waitMs > 0) {
        state.timer = setTimeout(() => {
          state.timer = null;
          this.pump(state);
        }, Math.ceil(waitMs));
        return;
      }
      if (state.policy) state.level += 1; // unknown policy: nothing to count against yet
      const queue = state.lanes.get(lane)!;
      const grant = queue.shift()!;
      state.turn.shift();
      if (queue.length > 0) state.turn.push(lane);
      else state.lanes.delete(lane);
      grant();
    }
  }
}

// The service client's fetch, routed through the scheduler: each request to a rate-limited endpoint waits for its
// slot, and every answer's RateLimit headers go back to the scheduler. The service client itself is unchanged (its
// own retries pass through here too, so a retry also waits for a slot).
/** The service's rate-limited endpoints (the OAuth endpoints are not limited). */
const LIMITED = /^\/api\/v1\//;

/**
 * `inner`, with every request to a rate-limited endpoint sent only once `slot` allows it (a Response from `slot` is
 * answered instead, nothing sent) and every answer's RateLimit headers fed back to the scheduler.
 */
function limitedFetch(
  scheduler: RateScheduler,
  client: string,
  inner: typeof fetch,
  slot: () => Promise<void> | Response | undefined,
): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!LIMITED.test(url.pathname)) return inner(input, init);
    const local = await slot();
    if (local) return local;
    const response = await inner(input, init);
    scheduler.observe(client, response.status, response.headers);
    return response;
  };
}

export function scheduledFetch(
  scheduler: RateScheduler,
  client: string,
  lane: string,
  inner: typeof fetch = (i, o) => globalThis.fetch(i, o),
): typeof fetch {
  return limitedFetch(scheduler, client, inner, async () => {
    const asked = performance.now();
    await scheduler.acquire(client, lane);
    schedulerWaitSeconds.series().observe((performance.now() - asked) / 1000);
  });
}

/** One budget per client id at one service origin. */
export const clientKeyOf = (baseUrl: string, clientId: string) => `${new URL(baseUrl).origin} ${clientId}`;

export type InteractiveSlot = { ok: true; fetch: typeof fetch } | { ok: false; retryAfterMs: number };

/**
 * For a caller that must not wait in line (a shopper on the Continue cart button): a slot now, with a fetch that
 * sends its first request on it and feeds every answer back; or a refusal with the wait. A retry inside that fetch
 * asks for a slot again and, refused, gets a local 429 with Retry-After (nothing is sent), which the service
 * client treats like the service's own.
 */
export function interactiveSlot(
  scheduler: RateScheduler,
  client: string,
  inner: typeof fetch = (i, o) => globalThis.fetch(i, o),
): InteractiveSlot {
  const first = scheduler.tryAcquire(client);
  if (!first.ok) {
    interactiveRefused.series().inc();
    return first;
  }
  let held = true;
  const fetch = limitedFetch(scheduler, client, inner, () => {
    if (held) {
      held = false; // the slot granted above
      return undefined;
    }
    const slot = scheduler.tryAcquire(client);
    if (slot.ok) return undefined;
    interactiveRefused.series().inc();
    const headers = { "content-type": "application/json", "retry-after": String(Math.ceil(slot.retryAfterMs / 1000)) };
    return new Response(JSON.stringify({ error: "rate_limited" }), { status: 429, headers });
  });
  return { ok: true, fetch };
}

let shared: RateScheduler | undefined;

/**
 * The process's one rate budget per service client, shared by the sync worker's imports (when it runs in this
 * process) and the storefront's Continue cart handoffs: the service limits the client, not the caller, so a flood of
 * handoffs must take its slots from the same budget or it would earn the shop 429s that hold its imports back.
 */
export function serviceScheduler(): RateScheduler {
  shared ??= new RateScheduler();
  return shared;
}

/** Continue cart's way into that budget: a slot now or a refusal (never a wait), through the same address guard as every call. */
export const handoffGate = {
  open: (settings: ServiceSettings, inner?: typeof fetch): InteractiveSlot =>
    interactiveSlot(
      serviceScheduler(),
      clientKeyOf(serviceBaseUrl(settings), settings.clientId),
      inner ?? guardedFetch(policyFromEnv()),
    ),
};
