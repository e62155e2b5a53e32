// What the service says of its rate in its answers (RateLimit-Policy, RateLimit, Retry-After), read strictly, and
// what the app assumes before it has said anything (the contract's default budget, the first wave).
export interface Policy {
  capacity: number;
  perSecond: number;
}

export const CONTRACT_POLICY: Policy = { capacity: 40, perSecond: 2 };
/** Requests sent before the service's first answer: an eighth of the contract's default bucket (see the top). */
export const FIRST_WAVE = 5;

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
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
