// Leaky bucket per client (docs/service.md, "Rate limits and Retry-After"), shared by the three service endpoints.
import type { Headers } from "./http";

export class RateLimiter {
  private readonly buckets = new Map<string, { level: number; at: number }>();

  constructor(
    readonly capacity: number,
    readonly leakPerSecond: number,
  ) {}

  /**
   * Adds one request to the client's bucket; when it would overflow, returns the 429 headers instead. An accepted
   * request gets the RateLimit headers too (the IETF draft allows them on any answer), so a client can pace itself.
   */
  take(clientId: string, now: number): { ok: boolean; headers: Headers } {
    const bucket = this.buckets.get(clientId) ?? { level: 0, at: now };
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    bucket.level = Math.max(0, bucket.level - elapsed * this.leakPerSecond);
    bucket.at = now;
    this.buckets.set(clientId, bucket);
    if (bucket.level + 1 <= this.capacity) {
      bucket.level += 1;
      const remaining = Math.floor(this.capacity - bucket.level);
      const reset = remaining > 0 ? 0 : Math.ceil((bucket.level + 1 - this.capacity) / this.leakPerSecond);
      return { ok: true, headers: { ...this.policy(), ratelimit: `"default";r=${remaining};t=${reset}` } };
    }
    const retryAfter = Math.max(1, Math.ceil((bucket.level + 1 - this.capacity) / this.leakPerSecond));
    return { ok: false, headers: this.headers(retryAfter) };
  }

  private policy(): Headers {
    return { "ratelimit-policy": `"default";q=${this.capacity};w=${Math.ceil(this.capacity / this.leakPerSecond)}` };
  }

  private headers(retryAfter: number): Headers {
    return { "retry-after": String(retryAfter), ...this.policy(), ratelimit: `"default";r=0;t=${retryAfter}` };
  }

  clear(): void {
    this.buckets.clear();
  }
}
