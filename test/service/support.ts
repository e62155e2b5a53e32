// Shared test doubles for the service client tests: a fake clock whose sleep only records and advances, and a
// scripted fetch that records every request (headers and exact body bytes).
import type { ServiceDepsOverrides, ServiceSettings } from "~/service/client.server";

export function fakeTime(start = 1_795_000_000_000) {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

export interface Recorded {
  url: string;
  method: string;
  headers: Headers;
  body: Uint8Array;
}

type Step = Response | Error | ((req: Recorded) => Response | Promise<Response>);

/** A fetch that answers from `steps` in order (the last one repeats) and records every call. */
export function scriptedFetch(steps: Step[]) {
  const calls: Recorded[] = [];
  const impl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = init?.body instanceof Uint8Array ? init.body : new TextEncoder().encode(String(init?.body ?? ""));
    const req: Recorded = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: new Uint8Array(body),
    };
    calls.push(req);
    const step = steps[Math.min(calls.length - 1, steps.length - 1)];
    if (step instanceof Error) throw step;
    return typeof step === "function" ? step(req) : step.clone();
  };
  return { calls, fetch: impl as typeof fetch };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const SETTINGS: ServiceSettings = {
  environment: "sandbox",
  baseUrl: "https://api.example.test",
  sandboxBaseUrl: "https://sandbox.example.test",
  authUrl: "https://auth.example.test",
  clientId: "sandbox-client",
  clientSecret: "very-secret-client-secret",
  signingSecret: "whsec-very-secret",
};

/** Deps for a fully controlled client: fake time, fixed jitter, predictable nonces. */
export function controlled(fetchImpl: typeof fetch, extra: ServiceDepsOverrides = {}) {
  const time = fakeTime();
  let n = 0;
  const deps: ServiceDepsOverrides = {
    fetch: fetchImpl,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
    newNonce: () => `nonce-${String(++n).padStart(12, "0")}`,
    timeoutMs: 2_000,
    ...extra,
  };
  return { time, deps };
}

export const ORDER = {
  external_order_id: "order-1001",
  ordered_at: "2026-11-01T10:00:00Z",
  currency: "EUR",
  lines: [{ external_line_id: "line-1", title: "Blue mug", quantity: 2 }],
};

export const CART = {
  external_cart_id: "cart-1001",
  cart_reference: "r-1",
  lines: [{ external_line_id: "l1", title: "Blue mug", quantity: 2, unit_price_minor: 1250, currency: "EUR" }],
};

/** Real fetch that also records what each attempt sent (headers and body bytes). */
export function recordingFetch() {
  const sent: { url: string; headers: Headers; body: Uint8Array }[] = [];
  const impl = (input: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(input),
      headers: new Headers(init?.headers),
      body:
        init?.body instanceof Uint8Array
          ? new Uint8Array(init.body)
          : new TextEncoder().encode(String(init?.body ?? "")),
    });
    return fetch(input, init);
  };
  return { sent, fetch: impl as typeof fetch };
}
