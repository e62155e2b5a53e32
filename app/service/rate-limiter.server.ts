// Sends to the service at the rate it allows, fairly between shops.
//
// The service gives each client (client id at one base URL) a leaky bucket and says so in its answers:
// `RateLimit-Policy: "default";q=40;w=20` (40 requests, refilled over 20 s: 2/s) and `RateLimit: "default";r=5;t=3` (5
// left; t seconds until one more), on 429 at least, on every answer when the service is generous. Once the policy is
// known, requests are held here until the modelled bucket has room, so a backlog drains at the allowed rate instead of
// bouncing off 429s; `r`, read as of the request's send, corrects the model (another process may share the client). A
// 429 blocks the client for its `Retry-After` (or `t`), also when no RateLimit header came with it. Before the service
// has said anything, a first wave of FIRST_WAVE requests goes out, then one at the contract's default rate (2 a second)
// until an answer brings the policy: a client with a backlog learns the policy from several answers at once, never
// sends a burst the service has not announced, and does not stall if the wave's requests fail. An answer without a
// policy leaves nothing to hold to: requests are then not held.
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
// On PostgreSQL every process draws on one budget per client (`share`, a SharedRateStore: app/sync/shared-rate.server.ts): slots come
// in small batches leased from the database (a batch lives a quarter of a second at most, so a slot is spent
// about when the shared model counted it), what an answer says goes back with the next lease, and a shopper's
// click is paced by this process's own model (corrected by the answers' `RateLimit`), never waiting on the database,
// and charged to the shared budget with the next lease. A policy any process learned (this run or an earlier one)
// is in the shared row, so a process starts at the service's rate from its first lease; while it is known to no
// process, the first wave is the shared row's, not each process's. When a lease does not answer in time the
// process paces itself on a conservative share of the last known rate (the rate over one more than the processes
// seen drawing on it) until a lease answers again: never unlimited; `service_rate_fallback` says so.
//
// The service client's fetch routed through it, and the process's one scheduler: ./rate-limited-fetch.server.ts.
// One file: every path (queue, lease, interactive share, fallback) moves the same per-client state.
import { serviceRateFallback, serviceRateLeases } from "../lib/metrics.server";
import { CONTRACT_POLICY, FIRST_WAVE, parsePolicy, parseRateLimit, retryAfterMs, type Policy } from "./rate-headers";
import type { LeaseRequest, SharedRateStore } from "./shared-rate-store";

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
  /** The budget shared with other processes (PostgreSQL); without it this process's model is the budget. */
  shared?: SharedRateStore;
  /** A lease that takes longer fails over to the local share (default 2 s: a database that slow, or away). */
  leaseTimeoutMs?: number;
  /** How long the local share holds before a lease is tried again (default 1 s). */
  fallbackRetryMs?: number;
}

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
  /** Shared budget only: slots leased and not yet spent, usable until `creditsUntil`. */
  credits: number;
  creditsUntil: number;
  leasing: boolean;
  /** No lease before (the last one found no room: the wait it named). */
  leaseAt: number;
  /** Paced on the local share until then (a lease failed). */
  fallbackUntil: number;
  /** Processes drawing on the budget, as the last lease counted them. */
  peers: number;
  /** What answers said since the last lease, and slots spent ahead of it: sent with the next one. */
  pending: Omit<LeaseRequest, "want" | "headroom"> & { spent: number };
  /** When the last lease answered, and whether it had room. */
  leasedAt: number;
  leaseHadRoom: boolean;
  /** The service answered this client (with or without a policy). */
  answered: boolean;
  /** Slots this process spent per second lately (a moving average), and when it last counted. */
  spentRate: number;
  spentAt: number;
  /** A lease's round trip, averaged (ms). */
  leaseRtt: number;
  /** When the first lease answered (0: none yet). */
  firstLeasedAt: number;
  /** Slots this process took so far (queued, leased and interactive alike): an answer's `RateLimit` is aged by it. */
  taken: number;
}

/** When a request was sent, and how many slots its process had taken by then (`RateScheduler.mark`). */
export interface SendMark {
  at: number;
  taken: number;
}

/**
 * A batch is what the rate allows in 0.2 s (at least 2, at most a quarter of the bucket); it lives 250 ms. A process
 * drawing alone takes what the rate allows in one and a half lease round trips if the database answers slower than
 * that, up to half the bucket: one lease is out at a time, so a smaller batch caps the pace at batch / round trip (20
 * slots through a pool busy with 300 jobs' statements, 200 to 1,000 ms a lease, held a 100/s service to 54/s). Not
 * beside other processes (seen over its first 2 s of leases, so processes started together count each other): their
 * batches, each counted when leased and sent a round trip later, could reach the service together.
 */
const BATCH_SECONDS = 0.2;
const CREDIT_TTL_MS = 250;
const ARRIVAL_SPREAD_SECONDS = 0.05;
const ALONE_AFTER_MS = 2_000;

export class RateScheduler {
  private readonly clients = new Map<string, ClientState>();
  private readonly keys = new WeakMap<ClientState, string>();
  private readonly now: () => number;
  private readonly headroom: number;
  private readonly fallbackWaitMs: number;
  private readonly reserveShare: number;
  private readonly rateShare: number;
  private readonly assumed: Policy;
  /** The bucket queued requests are held to before the service's first answer: FIRST_WAVE, then its rate. */
  private readonly firstWave: Policy;
  private shared: SharedRateStore | undefined;
  private readonly leaseTimeoutMs: number;
  private readonly fallbackRetryMs: number;

  constructor(options: RateSchedulerOptions = {}) {
    this.shared = options.shared;
    this.leaseTimeoutMs = options.leaseTimeoutMs ?? 2_000;
    this.fallbackRetryMs = options.fallbackRetryMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.headroom = options.headroom ?? 1;
    this.fallbackWaitMs = options.fallbackWaitMs ?? 1_000;
    this.reserveShare = options.interactiveReserve ?? 0.25;
    this.rateShare = options.interactiveShare ?? 0.5;
    this.assumed = options.assumedPolicy ?? CONTRACT_POLICY;
    this.firstWave = { capacity: FIRST_WAVE + this.headroom, perSecond: this.assumed.perSecond };
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
    if (state.turn.length > 0) waitMs = Math.max(waitMs, ((1 - state.interactiveTokens) / rate) * 1000);
    // Paced by this process's own model, as on one process (a click never waits on the database); on a shared
    // budget its slot is charged with the next lease, so the other processes count it too.
    const local = this.effective(state, now) ?? this.assumed;
    waitMs = Math.max(waitMs, ((state.level + 1 - this.ceilingOf(local)) / local.perSecond) * 1000);
    if (waitMs > 0) return { ok: false, retryAfterMs: Math.ceil(waitMs) };
    state.level += 1;
    state.taken += 1;
    if (this.shared) state.pending.spent += 1;
    state.interactiveTokens = Math.max(0, state.interactiveTokens - 1);
    return { ok: true };
  }

  /** Draw on `store`, the budget every process shares, from now on (the process's wiring, on PostgreSQL). */
  share(store: SharedRateStore): void {
    this.shared = store;
  }

  /** This process's part of the rate the service allows `client`, as far as known (the worker's pace follows it). */
  ratePerSecond(client: string): number | undefined {
    const state = this.clients.get(client);
    if (!state?.policy) return undefined;
    return state.policy.perSecond / (this.shared ? state.peers : 1);
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

  /** Marks a request's send (before it goes out): its answer's `RateLimit` is then read as of that moment. */
  mark(client: string): SendMark {
    return { at: this.now(), taken: this.state(client).taken };
  }

  /** Feeds an answer of the service back: its RateLimit headers, and a 429's wait (`sent`: the request's mark). */
  observe(client: string, status: number, headers: Headers, sent?: SendMark): void {
    const state = this.state(client);
    const now = this.now();
    this.leak(state, now);
    const policy = parsePolicy(headers.get("ratelimit-policy"));
    const learned = !state.answered || (policy !== undefined && state.policy === undefined);
    if (policy && (policy.capacity !== state.policy?.capacity || policy.perSecond !== state.policy.perSecond)) {
      state.policy = policy;
      state.pending.policy = policy; // taught to every process with the next lease
      state.leaseAt = 0; // a lease's wait was reckoned by the first wave's pace
    }
    state.answered = true;
    const { remaining, resetSeconds } = parseRateLimit(headers.get("ratelimit"));
    if (state.policy && remaining !== undefined) {
      // The service's count is authoritative as of when it counted this request: since its send the bucket leaked,
      // and this process took more slots (each counted, as the service will count it). Read as of now instead, a
      // slow service's every answer pinned the bucket full: against one answering in 2 s at 100/s, answers counted
      // 2 s earlier held the pace to a fifth for 2 s at a time (and aged without the slots taken since, the model
      // ran ahead of the service: 29 of 629 answered 429).
      const aged = sent ? ((now - sent.at) / 1000) * state.policy.perSecond - (state.taken - sent.taken) : 0;
      const floor = Math.min(state.policy.capacity, state.policy.capacity - remaining - aged);
      state.level = Math.max(state.level, floor);
      if (this.shared && floor > 0) state.pending.floorLevel = Math.max(state.pending.floorLevel ?? 0, floor);
    }
    if (status === 429) {
      if (state.policy) state.level = state.policy.capacity;
      const wait =
        retryAfterMs(headers.get("retry-after"), now) ??
        (resetSeconds !== undefined ? resetSeconds * 1000 : this.fallbackWaitMs);
      state.blockedUntil = Math.max(state.blockedUntil, now + wait);
      if (this.shared) {
        state.pending.blockedForMs = Math.max(state.pending.blockedForMs ?? 0, wait);
        state.credits = 0; // the service is full: what is in hand would only bounce
        this.refill(state); // the other processes hear of it now
      }
    }
    if (learned && state.timer) {
      clearTimeout(state.timer); // it waited by what was known before this answer (the first wave's pace)
      state.timer = null;
    }
    this.pump(state);
  }

  /** Requests waiting for a slot, all clients together. */
  queued(): number {
    let total = 0;
    for (const state of this.clients.values()) for (const queue of state.lanes.values()) total += queue.length;
    return total;
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
        credits: 0,
        creditsUntil: 0,
        leasing: false,
        leaseAt: 0,
        fallbackUntil: 0,
        peers: 1,
        pending: { spent: 0 },
        leasedAt: 0,
        leaseHadRoom: false,
        answered: false,
        spentRate: 0,
        spentAt: now,
        leaseRtt: 0,
        firstLeasedAt: 0,
        taken: 0,
      };
      this.keys.set(state, client);
      this.clients.set(client, state);
    }
    return state;
  }

  private ceilingOf(policy: Policy): number {
    return Math.max(1, policy.capacity - this.headroomOf(policy));
  }

  /**
   * Requests kept below the capacity: `headroom`, or what the rate sends in ARRIVAL_SPREAD_SECONDS if more. Requests
   * reach the service some ms after their slots, not all equally late (a busy event loop, a new connection), so
   * ones granted apart can arrive together: at 100/s with one request of headroom, 1 to 3 in 600 were answered 429,
   * each blocking the client for a second.
   */
  private headroomOf(policy: Policy): number {
    return Math.max(this.headroom, Math.floor(policy.perSecond * ARRIVAL_SPREAD_SECONDS));
  }

  private reserveOf(policy: Policy): number {
    return Math.max(1, Math.round(policy.capacity * this.reserveShare));
  }

  private leak(state: ClientState, now: number) {
    // Before a budget is announced only interactive requests are counted, against the assumed one.
    const policy = this.effective(state, now) ?? this.assumed;
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
      // Nothing said yet: the first wave's bucket (see the top); said without a policy: nothing to hold to.
      const policy = this.effective(state, now) ?? (state.answered ? undefined : this.firstWave);
      if (waitMs <= 0 && this.drawsShared(state, now)) {
        const unknown = !state.policy && state.leasedAt > 0;
        if (!this.takeCredit(state, now) && !(unknown && state.answered)) {
          waitMs = this.refill(state);
          if (waitMs <= 0) return; // the lease's answer pumps again
        }
      } else if (policy) {
        // Queued requests leave the interactive reserve free while shoppers are about (see the top).
        const reserve = now < state.interactiveUntil ? this.reserveOf(policy) : 0;
        const ceiling = Math.max(1, this.ceilingOf(policy) - reserve);
        waitMs = Math.max(waitMs, ((state.level + 1 - ceiling) / policy.perSecond) * 1000);
      }
      if (waitMs > 0) {
        state.timer = setTimeout(() => {
          state.timer = null;
          this.pump(state);
        }, Math.ceil(waitMs));
        return;
      }
      if (policy) state.level += 1; // unknown policy: nothing to count against yet
      state.taken += 1; // a leased credit's slot too
      const queue = state.lanes.get(lane)!;
      const grant = queue.shift()!;
      state.turn.shift();
      if (queue.length > 0) state.turn.push(lane);
      else state.lanes.delete(lane);
      grant();
    }
  }

  /** Drawing on the shared budget now (not on the local share after a failed lease). */
  private drawsShared(state: ClientState, now: number): boolean {
    return this.shared !== undefined && now >= state.fallbackUntil;
  }

  /** The policy the local model paces by: the service's, or while a lease fails, this process's share of it. */
  private effective(state: ClientState, now: number): Policy | undefined {
    if (!this.shared || now >= state.fallbackUntil) return state.policy;
    const known = state.policy ?? this.assumed; // never unlimited
    const share = 1 / (state.peers + 1);
    return { capacity: Math.max(1, Math.floor(known.capacity * share)), perSecond: known.perSecond * share };
  }

  /** Spends one leased slot if one is in hand (and not expired). */
  private takeCredit(state: ClientState, now: number): boolean {
    if (now > state.creditsUntil) state.credits = 0;
    if (state.credits <= 0) return false;
    state.credits -= 1;
    // Spent per second, averaged over about a second.
    const elapsed = Math.max(1, now - state.spentAt) / 1000;
    const weight = Math.min(1, elapsed);
    state.spentRate = state.spentRate * (1 - weight) + (1 / elapsed) * weight;
    state.spentAt = now;
    return true;
  }

  /**
   * Asks the shared budget for a batch unless a lease is out; the answer pumps again. Returns the ms to wait
   * before a lease may be asked (the last one found no room), or 0.
   */
  private refill(state: ClientState): number {
    const store = this.shared;
    if (!store || state.leasing) return 0;
    const now = this.now();
    if (now < state.leaseAt) return state.leaseAt - now;
    const client = this.keys.get(state)!;
    const policy = state.policy ?? this.assumed;
    // Alone: no other process drew lately, as seen by leases over ALONE_AFTER_MS (processes started together
    // register with their first leases).
    const alone = state.peers <= 1 && state.firstLeasedAt > 0 && now - state.firstLeasedAt >= ALONE_AFTER_MS;
    const seconds = alone ? Math.max(BATCH_SECONDS, (1.5 * state.leaseRtt) / 1000) : BATCH_SECONDS;
    const most = Math.floor(policy.capacity / (alone ? 2 : 4));
    const batch = Math.max(2, Math.min(Math.ceil(policy.perSecond * seconds), most));
    const queued = [...state.lanes.values()].reduce((sum, queue) => sum + queue.length, 0);
    // Slots for what waits, or for what this process spent lately over a batch's life if more: a busy process
    // leases whole batches. A shopper's click never leases ahead of itself (a slot it leaves unspent is rate lost
    // for everyone, seconds of it at a slow rate): it spends ahead of the lease, which charges it (tryAcquire).
    const recent = Math.ceil(state.spentRate * (CREDIT_TTL_MS / 1000));
    // No process knows the policy: the shared row's first wave (see the top).
    const want =
      queued === 0 ? 0 : state.policy ? Math.min(batch, Math.max(queued, recent)) : Math.min(queued, FIRST_WAVE);
    const { spent, ...said } = state.pending;
    state.pending = { spent: 0 };
    // Back from the local share: what this process sent on its own is still in the service's bucket (its local
    // model's level): charged with this lease, or the others would fill the bucket on top of it.
    this.leak(state, now);
    const carried = state.fallbackUntil > 0 ? Math.ceil(state.level) : 0;
    state.leasing = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the rate lease took too long")), this.leaseTimeoutMs);
    });
    void Promise.race([
      store.lease(client, {
        want,
        headroom: this.headroomOf(policy),
        spent: spent + carried,
        firstWave: { slots: FIRST_WAVE, perSecond: this.assumed.perSecond },
        ...said,
      }),
      timeout,
    ])
      .then(
        (lease) => {
          const at = this.now();
          state.leaseRtt += (at - now - state.leaseRtt) * 0.2;
          if (state.fallbackUntil > 0) serviceRateFallback.series().set(0);
          state.fallbackUntil = 0;
          if (lease.policy) state.policy = lease.policy;
          state.peers = lease.peers;
          state.leasedAt = at;
          if (state.firstLeasedAt === 0) state.firstLeasedAt = at;
          state.leaseHadRoom = lease.waitMs <= 0;
          if (lease.granted > 0) {
            state.credits = (at > state.creditsUntil ? 0 : state.credits) + lease.granted;
            state.creditsUntil = at + CREDIT_TTL_MS;
          } else if (want > 0) {
            // No room: come back when a batch is due, so a lease brings a batch and not one slot (arriving half a
            // round trip early; a few ms apart per process, so they do not all ask at once).
            state.leaseAt = at + Math.max(lease.waitMs - state.leaseRtt / 2, 5) + Math.random() * 10;
          }
          serviceRateLeases.series(lease.granted > 0 ? "granted" : "empty").inc();
        },
        () => {
          const at = this.now();
          serviceRateLeases.series("failed").inc();
          serviceRateFallback.series().set(1);
          // Paced alone for a while, from a full share (no burst on top of what the others may be sending).
          state.fallbackUntil = at + this.fallbackRetryMs;
          state.level = this.effective(state, at)!.capacity;
          state.at = at;
          state.credits = 0;
          // What the answers said is taught with a later lease.
          state.pending = { ...said, ...state.pending, spent: state.pending.spent + spent };
        },
      )
      .finally(() => {
        clearTimeout(timer);
        state.leasing = false;
        if (state.timer) {
          clearTimeout(state.timer);
          state.timer = null;
        }
        this.pump(state);
      });
    return 0;
  }
}
