// Settings and injected collaborators of the service client. Everything a test wants to control (fetch, clock,
// sleep, randomness, timeouts, retry budget) comes in here, with real defaults, so the modules stay pure-ish.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { realSleep } from "../lib/sleep";
import { guardedFetch, policyFromEnv } from "./address-policy.server";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.server";

export type ServiceEnvironment = "sandbox" | "production";
export type ClientAuthMethod = "client_secret_basic" | "client_secret_post";

/** The merchant's settings, as the settings page stores them (secrets in plain text here; storage encrypts). */
export interface ServiceSettings {
  environment: ServiceEnvironment;
  baseUrl: string;
  sandboxBaseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  signingSecret: string;
  /** Token endpoint client authentication; the contract allows both, basic is the default. */
  clientAuthMethod?: ClientAuthMethod;
}

const absoluteHttpUrl = z
  .string()
  .trim()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), {
    message: "must be an http(s) address, e.g. https://service.example.com",
  });

export const ServiceSettingsSchema = z.object({
  environment: z.enum(["sandbox", "production"]),
  baseUrl: absoluteHttpUrl,
  sandboxBaseUrl: absoluteHttpUrl,
  authUrl: absoluteHttpUrl,
  clientId: z.string().min(1, { message: "is required" }),
  clientSecret: z.string().min(1, { message: "is required" }),
  signingSecret: z.string().min(1, { message: "is required" }),
  clientAuthMethod: z.enum(["client_secret_basic", "client_secret_post"]).optional(),
});

/** Structural subset of pino's logger, so pino (or nothing) can be passed. Only ever given non-secret fields. */
export interface ServiceLogger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
}

export interface ServiceDeps {
  fetch: typeof fetch;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Waits `ms`; rejects when `signal` aborts. Tests inject one that only records (and advances a fake clock). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1): the jitter source. */
  random: () => number;
  /** A fresh signature nonce (16 to 128 chars of [A-Za-z0-9._~-]). */
  newNonce: () => string;
  /** Per-request timeout (one HTTP attempt, response body included). */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Refresh an access token this long before it expires. */
  refreshSkewMs: number;
  logger?: ServiceLogger;
}

export interface ServiceContext {
  settings: ServiceSettings;
  deps: ServiceDeps;
}

export type ServiceDepsOverrides = Partial<Omit<ServiceDeps, "retry">> & { retry?: Partial<RetryPolicy> };

export function createServiceContext(settings: ServiceSettings, overrides: ServiceDepsOverrides = {}): ServiceContext {
  const { retry, ...rest } = overrides;
  return {
    settings,
    deps: {
      // Only public addresses (loopback under the opt-in), no redirects: address-policy.server.ts. Late-bound to
      // globalThis.fetch underneath, so a test's global fetch stub (if any) is honoured.
      fetch: guardedFetch(policyFromEnv()),
      now: () => Date.now(),
      sleep: realSleep,
      random: Math.random,
      newNonce: randomUUID,
      timeoutMs: 15_000,
      refreshSkewMs: 60_000,
      ...rest,
      retry: { ...DEFAULT_RETRY_POLICY, ...retry },
    },
  };
}

/** Accepts either plain settings (real defaults) or a prepared context, so one-line callers stay one line. */
export function toContext(target: ServiceSettings | ServiceContext, overrides?: ServiceDepsOverrides): ServiceContext {
  if ("settings" in target && "deps" in target) {
    if (!overrides) return target;
    const { retry, ...rest } = overrides;
    return { settings: target.settings, deps: { ...target.deps, ...rest, retry: { ...target.deps.retry, ...retry } } };
  }
  return createServiceContext(target, overrides);
}

/** Base URL of the service for an environment (sandbox and production expose the same interface). */
export function serviceBaseUrl(
  settings: ServiceSettings,
  environment: ServiceEnvironment = settings.environment,
): string {
  return environment === "sandbox" ? settings.sandboxBaseUrl : settings.baseUrl;
}

/** `base` + `/api/v1/...`, keeping any path prefix the base URL carries. */
export function joinUrl(base: string, path: string): URL {
  return new URL(base.replace(/\/+$/, "") + path);
}

/** The host name for messages ("could not reach service.example.com"); never the full URL with credentials. */
export function hostOf(url: string | URL): string {
  try {
    return new URL(url).host;
  } catch {
    return "the service";
  }
}
