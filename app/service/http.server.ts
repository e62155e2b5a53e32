// One HTTP attempt against the service: fetch with a per-request timeout, then turn whatever came back (or did
// not) into a typed outcome. Tolerant of services that differ from our contract: error bodies may be non-JSON,
// empty or carry only `error`; then the status decides.
import type { z } from "zod";
import { describeIssues } from "./schemas";
import { hostOf, type ServiceDeps } from "./context.server";
import { failure, success, type Failure, type FailureKind, type Outcome } from "./outcomes.server";
import { parseRetryAfter } from "./retry.server";

export type Endpoint = "cart-handoffs" | "orders" | "shipments";

export const ENDPOINT_PATHS: Record<Endpoint, string> = {
  "cart-handoffs": "/api/v1/cart-handoffs",
  orders: "/api/v1/orders",
  shipments: "/api/v1/shipments",
};

export const ENDPOINT_SCOPES: Partial<Record<Endpoint, string>> = {
  orders: "orders:write",
  shipments: "shipments:write",
};

// Error codes of the spec and contract, mapped to our kinds. Anything else falls back to the status.
const CODE_KINDS: Record<string, FailureKind> = {
  invalid_signature: "invalid_signature",
  replayed_request: "replayed_request",
  idempotency_conflict: "idempotency_conflict",
  invalid_payload: "invalid_payload",
  invalid_request: "invalid_request",
  payload_too_large: "payload_too_large",
  order_not_found: "order_not_found",
  invalid_token: "invalid_token",
  insufficient_scope: "insufficient_scope",
};

function kindForStatus(status: number, endpoint: Endpoint): FailureKind {
  const signed = endpoint === "cart-handoffs";
  if (status === 400) return "invalid_request";
  if (status === 401) return signed ? "invalid_signature" : "invalid_token";
  if (status === 403) return signed ? "invalid_signature" : "insufficient_scope";
  if (status === 409) return "idempotency_conflict";
  if (status === 413) return "payload_too_large";
  if (status === 422) return "invalid_payload";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server_error";
  return "unexpected_response";
}

export interface AttemptRequest {
  endpoint: Endpoint;
  url: URL;
  headers: Record<string, string>;
  /** The exact bytes to send; retries pass the same array. */
  body: Uint8Array<ArrayBuffer>;
}

function readJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);

/** Network-level cause in plain words (e.g. "connection refused"); never includes the request. */
export function networkCause(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const words: Record<string, string> = {
    ERR_ADDRESS_REFUSED: "address not allowed: not a public address",
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host name not found",
    EAI_AGAIN: "host name lookup failed",
    ECONNRESET: "connection reset",
    ETIMEDOUT: "connection timed out",
    UND_ERR_SOCKET: "connection closed by the other side",
    CERT_HAS_EXPIRED: "its TLS certificate has expired",
    DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
  };
  return code ? (words[code] ?? code) : undefined;
}

/** Sends one request and maps the answer. Resolves with an outcome; never throws for HTTP or network problems. */
export async function sendAttempt<T>(
  deps: Pick<ServiceDeps, "fetch" | "now" | "timeoutMs" | "logger">,
  req: AttemptRequest,
  responseSchema: z.ZodType<T>,
  signal?: AbortSignal,
): Promise<Outcome<T>> {
  const host = hostOf(req.url);
  const timeout = AbortSignal.timeout(deps.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let status: number;
  let headers: Headers;
  let text: string;
  try {
    const res = await deps.fetch(req.url, {
      method: "POST",
      headers: req.headers,
      body: req.body,
      redirect: "manual",
      signal: combined,
    });
    status = res.status;
    headers = res.headers;
    text = await res.text(); // inside the timeout too: a stalled body is a timeout
  } catch (err) {
    if (timeout.aborted && !signal?.aborted) return failure("timeout", { host, timeoutMs: deps.timeoutMs }, 1);
    return failure("network_error", { host, detail: signal?.aborted ? "cancelled" : networkCause(err) }, 1);
  }

  const json = readJson(text);
  if (status >= 200 && status < 300) {
    const parsed = responseSchema.safeParse(json);
    if (!parsed.success) {
      return failure(
        "unexpected_response",
        { status, detail: `the request was accepted but the answer is unreadable (${describeIssues(parsed.error)})` },
        1,
      );
    }
    return success(parsed.data, status, headers.get("idempotent-replayed")?.trim().toLowerCase() === "true", 1);
  }

  const body = json && typeof json === "object" ? (json as Record<string, unknown>) : {};
  const errorCode = str(body.error);
  // The status wins for 429 and 5xx (a body code there says nothing new); otherwise a known code is more precise.
  const byCode = errorCode !== undefined ? CODE_KINDS[errorCode] : undefined;
  const kind = status === 429 || status >= 500 || !byCode ? kindForStatus(status, req.endpoint) : byCode;
  const out = failure(
    kind,
    {
      host,
      status,
      errorCode,
      detail: kind === "invalid_payload" || kind === "invalid_request" ? str(body.message) : undefined,
      // Kept apart so the admin can quote it as the service's words in any language (bounded, one line).
      serviceMessage: str(body.message)?.replace(/\s+/g, " ").slice(0, 300),
      retryAfterMs: status === 429 ? parseRetryAfter(headers.get("retry-after"), deps.now()) : undefined,
      scope: ENDPOINT_SCOPES[req.endpoint],
    },
    1,
  );
  deps.logger?.debug({ endpoint: req.endpoint, status, kind, errorCode }, "service answered with an error");
  return out;
}

/** The headers every write carries. */
export function jsonHeaders(idempotencyKey: string): Record<string, string> {
  return { "Content-Type": "application/json", Accept: "application/json", "Idempotency-Key": idempotencyKey };
}

/**
 * Checks a payload against its wire schema and the Idempotency-Key against its rule (1 to 255 visible ASCII
 * characters) before anything is sent. Returns the exact body bytes to send on every attempt, or an
 * invalid_payload failure naming the failing fields.
 */
export function prepareBody(
  schema: z.ZodType,
  payload: unknown,
  idempotencyKey: string,
): { ok: true; body: Uint8Array<ArrayBuffer> } | { ok: false; failure: Failure } {
  const parsed = schema.safeParse(payload);
  const keyOk = /^[\x21-\x7e]{1,255}$/.test(idempotencyKey);
  if (parsed.success && keyOk) {
    // The caller's object (now known valid) keeps its key order; these bytes are then fixed for every retry.
    return { ok: true, body: new TextEncoder().encode(JSON.stringify(payload)) };
  }
  const detail = [
    parsed.success ? undefined : describeIssues(parsed.error),
    keyOk ? undefined : "idempotency key: must be 1 to 255 visible ASCII characters (no spaces)",
  ]
    .filter(Boolean)
    .join("; ");
  return { ok: false, failure: failure("invalid_payload", { detail }, 0) };
}
