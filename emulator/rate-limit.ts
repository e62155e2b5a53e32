// Leaky bucket per client (contract 5), shared by the three service endpoints.
import type { Headers } from "./http";

export class RateLimiter {
  private readonly buckets = new Map<string, { level: number; at: number }>();

  constructor(
    readonly capacity: number,
    readonly leakPerSecond: number,
  ) {}

  /** Adds one request to the client's bucket; when it would overflow, returns the 429 headers instead. */
  take(clientId: string, now: number): { ok: true } | { ok: false; headers: Headers } {
    const bucket = this.buckets.get(clientId) ?? { level: 0, at: now };
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    bucket.level = Math.max(0, bucket.level - elapsed * this.leakPerSecond);
    bucket.at = now;
    this.buckets.set(clientId, bucket);
    if (bucket.level + 1 <= this.capacity) {
      bucket.level += 1;
      return { ok: true };
    }
    const retryAfter = Math.max(1, Math.ceil((bucket.level + 1 - this.capacity) / this.leakPerSecond));
    return { ok: false, headers: this.headers(retryAfter) };
  }

  private headers(retryAfter: number): Headers {
    const window = Math.ceil(this.capacity / this.leakPerSecond);
    return {
      "retry-after": String(retryAfter),
      "ratelimit-policy": `"default";q=${this.capacity};w=${window}`,
      ratelimit: `"default";r=0;t=${retryAfter}`,
    };
  }

  clear(): void {
    this.buckets.clear();
  }
}
