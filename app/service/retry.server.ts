// When to send again and how long to wait first. 429 waits Retry-After (seconds or an HTTP-date) when given;
// 5xx, network errors and timeouts (and a 429 without Retry-After) back off exponentially with full jitter.
// Everything else is final. The caller's attempt function builds each request afresh (new signature, current
// token) but must keep the same Idempotency-Key and body bytes: that is what makes these retries safe.
import { failure, type Failure, type Outcome } from "./outcomes.server";

export interface RetryPolicy {
  /** Attempts allowed for one call (1 = no retries). A 401 answered by one refresh and resend is one attempt. */
  maxAttempts: number;
  /** Give up rather than wait past this much time since the call started. */
  maxElapsedMs: number;
  /** Full-jitter backoff: wait uniform in [0, min(maxDelayMs, baseDelayMs * 2^retry)). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  maxElapsedMs: 60_000,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
};

/** "Full jitter" (AWS architecture blog): spreads retries of many clients instead of synchronising them. */
export function backoffDelayMs(retryIndex: number, random: () => number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After as milliseconds to wait: delta-seconds or an HTTP-date (RFC 9110 10.2.3). Undefined when absent or
 * unreadable (then the caller backs off). A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** What the loop needs of the client's collaborators (ServiceDeps, context.server.ts). */
export interface RetryDeps {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  retry: RetryPolicy;
  logger?: { debug(obj: Record<string, unknown>, msg?: string): void };
}

const AMBIGUOUS: ReadonlySet<Failure["kind"]> = new Set(["timeout", "network_error"]);
const TRANSIENT: ReadonlySet<Failure["kind"]> = new Set(["rate_limited", "server_error", "network_error", "timeout"]);

/**
 * Runs `attempt` until it succeeds, fails finally, or the budget is spent. `attempt` returns how many HTTP
 * requests it sent in `attempts` (a token-refresh retry inside one attempt counts); the total is reported.
 */
export async function withRetries<T>(
  deps: RetryDeps,
  attempt: () => Promise<Outcome<T>>,
  signal?: AbortSignal,
): Promise<Outcome<T>> {
  const policy = deps.retry;
  const startedAt = deps.now();
  let sent = 0; // requests, for the outcome
  let tries = 0; // calls of `attempt`, for the budget (one may send two requests: 401, refresh, resend)
  let earlierAmbiguous = false;
  for (;;) {
    let outcome = await attempt();
    tries += 1;
    sent += outcome.attempts;
    outcome = { ...outcome, attempts: sent };
    if (outcome.ok) return outcome;

    // After a timeout or lost connection, a 409 on our own key and bytes can only mean the earlier attempt is
    // still being processed (the contract answers a finished one with a replay). Waiting and asking again is safe.
    const inFlight = outcome.kind === "idempotency_conflict" && earlierAmbiguous;
    if (inFlight)
      outcome = { ...outcome, retryable: true, message: failure(outcome.kind, { retryable: true }).message };
    earlierAmbiguous ||= AMBIGUOUS.has(outcome.kind);
    if (!TRANSIENT.has(outcome.kind) && !inFlight) return outcome;

    const wait =
      outcome.kind === "rate_limited" && outcome.retryAfterMs !== undefined
        ? outcome.retryAfterMs
        : backoffDelayMs(tries - 1, deps.random, policy);
    const elapsed = deps.now() - startedAt;
    if (tries >= policy.maxAttempts || elapsed + wait > policy.maxElapsedMs || signal?.aborted) {
      // Tell the caller (the sync engine's scheduler) how long to wait before its own next try.
      return outcome.retryAfterMs === undefined ? { ...outcome, retryAfterMs: wait } : outcome;
    }
    deps.logger?.debug({ kind: outcome.kind, status: outcome.status, attempt: sent, waitMs: wait }, "service retry");
    try {
      await deps.sleep(wait, signal);
    } catch {
      return outcome; // the caller gave up (aborted): report the last answer rather than throw
    }
  }
}
