// The service client's fetch routed through the rate limiter (./rate-limiter.server.ts): scheduledFetch for the
// worker's imports, interactiveSlot for a shopper's click, the process's one limiter (serviceScheduler) and Continue
// cart's way into it (handoffGate) (docs/security.md).
import { interactiveRefused, schedulerWaitSeconds } from "../lib/metrics.server";
import { guardedFetch, policyFromEnv } from "./address-policy.server";
import { serviceBaseUrl, type ServiceSettings } from "./context.server";
import { RateScheduler } from "./rate-limiter.server";

// Each request to a rate-limited endpoint waits for its
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
    const sent = scheduler.mark(client);
    const response = await inner(input, init);
    scheduler.observe(client, response.status, response.headers, sent);
    return response;
  };
}

export function scheduledFetch(
  scheduler: RateScheduler,
  client: string,
  lane: string,
  inner: typeof fetch = (i, o) => globalThis.fetch(i, o),
  onWait?: (seconds: number) => void,
): typeof fetch {
  return limitedFetch(scheduler, client, inner, async () => {
    const asked = performance.now();
    await scheduler.acquire(client, lane);
    const waited = (performance.now() - asked) / 1000;
    schedulerWaitSeconds.series().observe(waited);
    onWait?.(waited);
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
