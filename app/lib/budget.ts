// Token buckets in memory, per process, for every budget in front of a shopper's or an anonymous client's request
// (Continue cart's in app/handoff/flow.server.ts, the other shopper routes' in ./shopper-budget.server.ts). The check
// must cost nothing (no database round trip); the worst case with N app processes is N times the budget, still
// bounded. Keys are hashes or shop domains, never raw cart tokens or addresses.
//
// Memory is bounded by a least-recently-used map: at `maxKeys` the key touched longest ago goes (a full bucket
// carries no information, and an idle key's bucket has refilled or is about to). The map is never cleared
// wholesale: an address or shop being throttled right now is among the most recently used and keeps its state,
// however many fresh keys a flood brings.

export interface BucketPolicy {
  /** Requests allowed at once. */
  burst: number;
  /** One request regained every this many milliseconds. */
  refillMs: number;
}

export const DEFAULT_MAX_KEYS = 50_000;

interface Bucket {
  tokens: number;
  at: number;
}

export type BudgetAnswer = { ok: true } | { ok: false; retryAfterMs: number };

export class Budget {
  // A Map iterates in insertion order: re-inserting on every touch keeps the least recently used first.
  private buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  readonly maxKeys: number;

  constructor(options: { now?: () => number; maxKeys?: number } = {}) {
    this.now = options.now ?? Date.now;
    this.maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_KEYS);
  }

  /** Keys held now (never more than maxKeys). */
  get size(): number {
    return this.buckets.size;
  }

  /** Takes one token from every bucket named, or none when any is empty; returns the wait in ms when refused. */
  take(entries: { key: string; policy: BucketPolicy }[]): BudgetAnswer {
    const t = this.now();
    const current = entries.map(({ key, policy }) => {
      const b = this.buckets.get(key);
      const tokens = b ? Math.min(policy.burst, b.tokens + (t - b.at) / policy.refillMs) : policy.burst;
      return { key, policy, tokens, seen: b };
    });
    const empty = current.find((c) => c.tokens < 1);
    if (empty) {
      // A refused key is still in use: it moves to the recent end, unchanged.
      for (const c of current) if (c.seen) this.touch(c.key, c.seen);
      return { ok: false, retryAfterMs: Math.ceil((1 - empty.tokens) * empty.policy.refillMs) };
    }
    for (const c of current) this.touch(c.key, { tokens: c.tokens - 1, at: t });
    return { ok: true };
  }

  private touch(key: string, bucket: Bucket) {
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    while (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
  }
}
