// The service client's fetch, routed through the rate scheduler: each request to a rate-limited endpoint waits
// for its slot, and every answer's RateLimit headers go back to the scheduler. The service client itself is
// unchanged (its own retries pass through here too, so a retry also waits for a slot).
import type { RateScheduler } from "./scheduler.server";

/** The service's rate-limited endpoints (the OAuth endpoints are not limited). */
const LIMITED = /^\/api\/v1\//;

export function scheduledFetch(scheduler: RateScheduler, client: string, lane: string, inner: typeof fetch = (i, o) => globalThis.fetch(i, o)): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!LIMITED.test(url.pathname)) return inner(input, init);
    await scheduler.acquire(client, lane);
    const response = await inner(input, init);
    scheduler.observe(client, response.status, response.headers);
    return response;
  };
}

/** One budget per client id at one service origin. */
export const clientKeyOf = (baseUrl: string, clientId: string) => `${new URL(baseUrl).origin} ${clientId}`;
