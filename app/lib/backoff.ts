// The one back-off rule for work that is tried again later: the durable queues (import and Flow jobs, token
// revocations) and the worker's lease after a database error.

/**
 * Exponential back-off with jitter: the `attempt`-th failure (1-based) waits between half and all of
 * min(cap, base · 2^(attempt-1)), so retries of many items spread out instead of arriving together; never sooner
 * than the service's Retry-After. Defaults: 2 s, 4 s, 8 s … capped at 15 minutes (a job).
 */
export function backoffMs(
  attempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
  base = 2_000,
  cap = 15 * 60_000,
): number {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  const delay = Math.round(ceiling / 2 + random() * (ceiling / 2));
  return Math.max(delay, retryAfterMs ?? 0);
}
