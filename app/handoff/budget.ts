// A small token bucket per cart and per shopper IP, so hammering "Continue cart" cannot create unbounded handoffs
// (nor unbounded Admin API calls and records). In memory, per process, on purpose: the check sits in front of every
// click and must cost nothing (no database round trip); the worst case with N app processes is N times the burst,
// still bounded. Keys are hashes, never raw cart tokens or addresses. The map is swept so it cannot grow forever.

export interface BucketPolicy {
  /** Requests allowed at once. */
  burst: number;
  /** One request regained every this many milliseconds. */
  refillMs: number;
}

export const CART_POLICY: BucketPolicy = { burst: 8, refillMs: 15_000 };
export const IP_POLICY: BucketPolicy = { burst: 60, refillMs: 1_000 };
const MAX_KEYS = 50_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class Budget {
  private buckets = new Map<string, Bucket>();
  constructor(private now: () => number = Date.now) {}

  /** Takes one token from every bucket named, or none when any is empty; returns the wait in ms when refused. */
  take(entries: { key: string; policy: BucketPolicy }[]): { ok: true } | { ok: false; retryAfterMs: number } {
    const t = this.now();
    if (this.buckets.size > MAX_KEYS) this.sweep(t);
    const current = entries.map(({ key, policy }) => {
      const b = this.buckets.get(key);
      const tokens = b ? Math.min(policy.burst, b.tokens + (t - b.at) / policy.refillMs) : policy.burst;
      return { key, policy, tokens };
    });
    const empty = current.find((c) => c.tokens < 1);
    if (empty) return { ok: false, retryAfterMs: Math.ceil((1 - empty.tokens) * empty.policy.refillMs) };
    for (const c of current) this.buckets.set(c.key, { tokens: c.tokens - 1, at: t });
    return { ok: true };
  }

  // Full buckets carry no information: dropping them is the same as never having seen the key.
  private sweep(t: number) {
    for (const [key, b] of this.buckets) {
      if (t - b.at > Math.max(CART_POLICY.burst * CART_POLICY.refillMs, IP_POLICY.burst * IP_POLICY.refillMs)) this.buckets.delete(key);
    }
    if (this.buckets.size > MAX_KEYS) this.buckets.clear();
  }
}
