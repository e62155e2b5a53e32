// One typed outcome per case the service (or the network) can produce. Callers switch on `kind`; `retryable` says
// whether sending the same request again (same Idempotency-Key, same bytes) can help; `message` is for a merchant.
// Messages are built here from the kind and non-secret facts only (host, status, field names), never from tokens.

export type FailureKind =
  | "invalid_signature"
  | "replayed_request"
  | "idempotency_conflict"
  | "invalid_payload"
  | "invalid_request"
  | "payload_too_large"
  | "order_not_found"
  | "invalid_token"
  | "insufficient_scope"
  | "reconnect_required"
  | "rate_limited"
  | "server_error"
  | "network_error"
  | "timeout"
  | "unexpected_response";

export interface Success<T> {
  ok: true;
  kind: "success";
  status: number;
  data: T;
  /** The service answered from its idempotency store (`Idempotent-Replayed: true`): nothing new was created. */
  replayed: boolean;
  /** Requests sent to the endpoint for this call, retries included (a failed token refresh counts as one too). */
  attempts: number;
}

export interface Failure {
  ok: false;
  kind: FailureKind;
  retryable: boolean;
  message: string;
  /** HTTP status when the service answered. */
  status?: number;
  /** The `error` code of the body, when there was one. */
  errorCode?: string;
  /** Plain-words detail: failing fields of a payload, the service's own `message`, a network cause. */
  detail?: string;
  /** The service's own `message` from its error body, when it gave one (shown quoted as its words). */
  serviceMessage?: string;
  /** How long to wait before trying again: Retry-After of a 429, or the next backoff when the budget ran out. */
  retryAfterMs?: number;
  /** As in Success; 0 when nothing was sent (invalid payload, grant needing reconnect). */
  attempts: number;
}

export type Outcome<T> = Success<T> | Failure;

export interface FailureFacts {
  host?: string;
  status?: number;
  errorCode?: string;
  detail?: string;
  retryAfterMs?: number;
  /** For insufficient_scope: the scope the endpoint needs. */
  scope?: string;
  timeoutMs?: number;
  retryable?: boolean;
  /** The service's own `message` (bounded by the caller). */
  serviceMessage?: string;
  /** Replaces the default message (already plain words, e.g. from the OAuth module). */
  message?: string;
}

const RETRYABLE: Record<FailureKind, boolean> = {
  invalid_signature: false,
  // A replay means the service saw this nonce already (e.g. a duplicated delivery): re-signing and sending again
  // with the same Idempotency-Key is safe and gets the stored answer. The automatic loop still treats it as final.
  replayed_request: true,
  // Same key, other body (or first request still in flight): sending the same thing again does not help.
  idempotency_conflict: false,
  invalid_payload: false,
  invalid_request: false,
  payload_too_large: false,
  order_not_found: false,
  invalid_token: false,
  insufficient_scope: false,
  reconnect_required: false,
  rate_limited: true,
  server_error: true,
  network_error: true,
  timeout: true,
  unexpected_response: false,
};

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const withDetail = (text: string, detail?: string) => (detail ? `${text}: ${detail}` : `${text}.`);

function messageFor(kind: FailureKind, f: FailureFacts): string {
  const host = f.host ?? "the service";
  switch (kind) {
    case "invalid_signature":
      return "The service rejected the request signature: check the client ID and signing secret in the settings.";
    case "replayed_request":
      return "The service had already seen this signed request (replay protection). Sending it again is safe.";
    case "idempotency_conflict":
      return f.retryable
        ? "The service is still processing an earlier attempt of this request. Try again in a moment."
        : "The service already received a different request with the same idempotency key, so this one was not applied.";
    case "invalid_payload":
      return withDetail("The data was not accepted", f.detail);
    case "invalid_request":
      return withDetail("The service refused the request as malformed (HTTP 400)", f.detail);
    case "payload_too_large":
      return "The request is too large for the service (over 1 MiB). Split it into smaller parts.";
    case "order_not_found":
      return "The shipment refers to an order the service does not have yet. Import the order first.";
    case "invalid_token":
      return "The service rejected the customer's authorization. The customer may need to reconnect the workspace.";
    case "insufficient_scope":
      return `The customer did not grant the permission this needs${f.scope ? ` (${f.scope})` : ""}. Ask them to reconnect and grant it.`;
    case "reconnect_required":
      return withDetail("The customer's workspace connection must be reconnected", f.detail);
    case "rate_limited":
      return f.retryAfterMs !== undefined
        ? `The service is limiting requests. Try again in ${seconds(f.retryAfterMs)} s.`
        : "The service is limiting requests. Try again shortly.";
    case "server_error":
      return `The service had an internal problem (HTTP ${f.status ?? "5xx"}). Trying again later usually helps.`;
    case "network_error":
      return withDetail(`Could not reach ${host}`, f.detail);
    case "timeout":
      return `${host} did not answer within ${f.timeoutMs !== undefined ? seconds(f.timeoutMs) : "the allowed"} s.`;
    case "unexpected_response":
      return withDetail(`The service gave an answer the app does not understand (HTTP ${f.status ?? "?"})`, f.detail);
  }
}

/** Builds a failure with its plain-words message. `facts.retryable` overrides the per-kind default. */
export function failure(kind: FailureKind, facts: FailureFacts = {}, attempts = 0): Failure {
  const retryable = facts.retryable ?? RETRYABLE[kind];
  const out: Failure = {
    ok: false,
    kind,
    retryable,
    message: facts.message ?? messageFor(kind, { ...facts, retryable }),
    attempts,
  };
  if (facts.status !== undefined) out.status = facts.status;
  if (facts.errorCode !== undefined) out.errorCode = facts.errorCode;
  if (facts.detail !== undefined) out.detail = facts.detail;
  if (facts.serviceMessage !== undefined) out.serviceMessage = facts.serviceMessage;
  if (facts.retryAfterMs !== undefined) out.retryAfterMs = facts.retryAfterMs;
  return out;
}

export function success<T>(data: T, status: number, replayed: boolean, attempts = 1): Success<T> {
  return { ok: true, kind: "success", status, data, replayed, attempts };
}
