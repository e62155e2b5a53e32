// Cart handoffs (POST /api/v1/cart-handoffs), signed with the signing secret. The body is serialised once; every
// attempt re-signs it with a fresh timestamp and nonce but the same Idempotency-Key and the very same bytes,
// so a retry after a lost answer is replayed by the service instead of creating a second handoff.
import { CartHandoffRequestSchema, CartHandoffResponseSchema, describeIssues } from "./schemas";
import type { CartHandoffRequest, CartHandoffResponse } from "./schemas";
import {
  hostOf,
  joinUrl,
  serviceBaseUrl,
  ServiceSettingsSchema,
  toContext,
  type ServiceContext,
  type ServiceDepsOverrides,
  type ServiceEnvironment,
  type ServiceSettings,
} from "./context.server";
import { ENDPOINT_PATHS, jsonHeaders, prepareBody, sendAttempt } from "./http.server";
import type { Outcome } from "./outcomes.server";
import { withRetries } from "./retry.server";
import { signedHeaders } from "./signature.server";

export interface HandoffOptions {
  idempotencyKey: string;
  /** Defaults to the settings' environment. */
  environment?: ServiceEnvironment;
  signal?: AbortSignal;
  /** Per-call overrides (timeout, retry budget, injected fetch/clock for tests). */
  deps?: ServiceDepsOverrides;
}

export type HandoffOutcome = Outcome<CartHandoffResponse>;

/** Validates, signs and sends a cart handoff, retrying transient failures. Never throws for service problems. */
export async function createCartHandoff(
  target: ServiceSettings | ServiceContext,
  request: CartHandoffRequest | unknown,
  options: HandoffOptions,
): Promise<HandoffOutcome> {
  const { settings, deps } = toContext(target, options.deps);
  const prepared = prepareBody(CartHandoffRequestSchema, request, options.idempotencyKey);
  if (!prepared.ok) return prepared.failure;
  const { body } = prepared;
  const url = joinUrl(serviceBaseUrl(settings, options.environment), ENDPOINT_PATHS["cart-handoffs"]);
  const base = jsonHeaders(options.idempotencyKey);

  return withRetries(
    deps,
    () => {
      const headers = {
        ...base,
        ...signedHeaders(settings.signingSecret, {
          method: "POST",
          pathWithQuery: url.pathname + url.search, // as the request line carries it (a base URL prefix included)
          clientId: settings.clientId,
          timestamp: Math.floor(deps.now() / 1000),
          nonce: deps.newNonce(),
          idempotencyKey: options.idempotencyKey,
          body,
        }),
      };
      return sendAttempt(
        deps,
        { endpoint: "cart-handoffs", url, headers, body },
        CartHandoffResponseSchema,
        options.signal,
      );
    },
    options.signal,
  );
}

export interface ConnectionCheck {
  ok: boolean;
  /** One line for the settings page. */
  message: string;
  /** The same as data, for an admin in another language (its words: app/admin/check-words.ts). */
  finding: CheckFinding;
  outcome?: HandoffOutcome;
}

/**
 * What a step of "Check connection" found, as a code and non-secret facts: the host asked, an HTTP status, and
 * `what` (a status and a code-like error from the answer, never its words: the address may not be the service).
 */
export type CheckFinding = {
  code:
    | "incomplete"
    | "signature_ok"
    | "signature_rejected"
    | "unreachable"
    | "timeout"
    | "rate_limited"
    | "server_error"
    | "unexpected"
    | "client_ok"
    | "client_rejected"
    | "client_unreachable"
    | "client_failed"
    | "undecryptable"
    | "not_configured"
    | "all_ok";
  host?: string;
  status?: number;
  what?: string;
};

/**
 * Cheap check for the settings page: signs a one-line sandbox handoff that expires in 60 s, sends it once, and
 * says in plain words whether the service accepted the signature.
 */
export async function checkConnection(
  target: ServiceSettings | ServiceContext,
  options: { environment?: ServiceEnvironment; deps?: ServiceDepsOverrides; signal?: AbortSignal } = {},
): Promise<ConnectionCheck> {
  const ctx = toContext(target, {
    timeoutMs: 10_000,
    ...options.deps,
    retry: { maxAttempts: 1, ...options.deps?.retry },
  });
  const { settings } = ctx;
  const valid = ServiceSettingsSchema.safeParse(settings, { reportInput: true });
  if (!valid.success)
    return {
      ok: false,
      message: `settings incomplete: ${describeIssues(valid.error)}`,
      finding: { code: "incomplete" },
    };

  const environment = options.environment ?? "sandbox";
  const host = hostOf(serviceBaseUrl(settings, environment));
  const check = `connection-check-${ctx.deps.now()}-${ctx.deps.newNonce()}`.slice(0, 255);
  const outcome = await createCartHandoff(
    ctx,
    {
      external_cart_id: check,
      cart_reference: "connection-check",
      lines: [{ external_line_id: "check-1", title: "Connection check", quantity: 1 }],
      expires_in_seconds: 60,
    },
    { idempotencyKey: check, environment, signal: options.signal },
  );
  if (outcome.ok)
    return {
      ok: true,
      message: `ok: ${host} accepted the signed request`,
      finding: { code: "signature_ok", host },
      outcome,
    };
  const message: Partial<Record<typeof outcome.kind, [string, CheckFinding]>> = {
    invalid_signature: ["signature rejected: check the client ID and signing secret", { code: "signature_rejected" }],
    network_error: [
      `could not reach ${host}${outcome.detail ? ` (${outcome.detail})` : ""}`,
      { code: "unreachable", host },
    ],
    timeout: [`could not reach ${host} (no answer in time)`, { code: "timeout", host }],
    rate_limited: [
      `${host} is rate limiting: the signature could not be checked, try again shortly`,
      { code: "rate_limited", host },
    ],
    server_error: [
      `${host} had an internal problem (HTTP ${outcome.status}); try again later`,
      { code: "server_error", host, status: outcome.status },
    ],
  };
  // Never the answer's own words: the address may not be the service at all (only its status and a code-like error).
  const code = outcome.errorCode && /^[a-z0-9_.-]{1,40}$/i.test(outcome.errorCode) ? `, ${outcome.errorCode}` : "";
  const what = `${outcome.status ? `HTTP ${outcome.status}` : outcome.kind}${code}`;
  const [words, finding] = message[outcome.kind] ?? [
    `unexpected answer from ${host} (${what})`,
    { code: "unexpected", host, what } satisfies CheckFinding,
  ];
  return { ok: false, message: words, finding, outcome };
}
