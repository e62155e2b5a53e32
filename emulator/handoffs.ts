// POST /api/v1/cart-handoffs, in the exact order of checks of docs/service.md, "Cart handoff signature".
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { CartHandoffRequestSchema, describeIssues } from "../app/service/schemas";
import type { Context } from "./context";
import {
  errorReply,
  header,
  isValidIdempotencyKey,
  json,
  mediaType,
  parseJsonBody,
  stringField,
  type Reply,
} from "./http";
import { scopedKey } from "./idempotency";
import { isValidNonce, NONCE_TTL_SECONDS, signatureMatches, timestampInWindow } from "./signature";

const DEFAULT_EXPIRES_IN_SECONDS = 86400;

export async function createHandoff(
  ctx: Context,
  req: IncomingMessage,
  pathWithQuery: string,
  bytes: Buffer,
): Promise<Reply> {
  const now = ctx.now();
  const clientId = header(req, "x-service-client-id");
  const timestamp = header(req, "x-service-timestamp");
  const nonce = header(req, "x-service-nonce");
  const signature = header(req, "x-service-signature");
  const idempotencyKey = header(req, "idempotency-key");

  // 1. Authentication: every failure looks the same from outside (401 invalid_signature).
  const unauthorized = (message: string) => errorReply(401, "invalid_signature", message);
  if (clientId === undefined || timestamp === undefined || nonce === undefined || signature === undefined) {
    return unauthorized(
      "X-Service-Client-Id, X-Service-Timestamp, X-Service-Nonce and X-Service-Signature are required",
    );
  }
  if (!isValidNonce(nonce)) return unauthorized("X-Service-Nonce must be 16 to 128 characters of [A-Za-z0-9._~-]");
  if (!ctx.clients.get(clientId)) return unauthorized("unknown client");
  if (!timestampInWindow(timestamp, now))
    return unauthorized("X-Service-Timestamp is not Unix seconds within 300 s of now");
  const parts = {
    method: req.method ?? "POST",
    pathWithQuery,
    clientId,
    timestamp,
    nonce,
    idempotencyKey,
    body: bytes,
  };
  if (!signatureMatches(signature, ctx.clients.activeSigningSecrets(clientId, now), parts)) {
    return unauthorized("no v1 signature matches");
  }

  // 2. Rate limit.
  const limited = ctx.rateLimiter.take(clientId, now);
  if (!limited.ok) return errorReply(429, "rate_limited", "too many requests", limited.headers);

  // 3. Replay: the nonce is recorded from here on, whatever happens after.
  const nonceKey = `${clientId}\u0000${nonce}`;
  if (ctx.nonces.get(nonceKey, now)) return errorReply(409, "replayed_request", "this nonce was already used");
  ctx.nonces.set(nonceKey, true, now + NONCE_TTL_SECONDS * 1000, now);

  // 4. Transport-level checks (this endpoint lists no 400). Content-Type is checked even for an empty body;
  // a zero-length body is then absent (not "not JSON") and fails the schema at step 6.
  if (mediaType(req) !== "application/json") {
    return errorReply(422, "invalid_payload", "Content-Type must be application/json");
  }
  if (!isValidIdempotencyKey(idempotencyKey)) {
    return errorReply(422, "invalid_payload", "Idempotency-Key must be 1 to 255 visible ASCII characters");
  }
  const parsed = parseJsonBody(bytes);
  if (!parsed.ok) return errorReply(422, "invalid_payload", "body is not JSON");
  const externalId = stringField(parsed.value, "external_cart_id");

  // 5. Idempotency, then 6 and 7.
  const reply = await ctx.idempotency.run(
    scopedKey("handoffs", [clientId], idempotencyKey),
    bytes,
    now,
    () => ctx.faults.afterKeyReserved(req.method ?? "POST", "/api/v1/cart-handoffs"),
    () => validateAndCreate(ctx, clientId, parsed.value, now),
  );
  // The budget's headers on every answer past the limit, as for imports (rate-limit.ts), so a client can pace itself.
  return { ...reply, headers: { ...limited.headers, ...reply.headers }, externalId };
}

// 6. Schema, 7. create.
function validateAndCreate(ctx: Context, clientId: string, body: unknown, now: number): Reply {
  const result = CartHandoffRequestSchema.safeParse(body);
  if (!result.success) return errorReply(422, "invalid_payload", describeIssues(result.error));
  const handoffId = randomUUID();
  const expiresAtMs = now + (result.data.expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS) * 1000;
  const handoff = {
    handoff_id: handoffId,
    client_id: clientId,
    claim_url: `${ctx.baseUrl()}/claim/${handoffId}`,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(expiresAtMs).toISOString(),
    claimed_workspace_id: null,
    claimed_at: null,
    body: result.data,
  };
  ctx.store.handoffs.set(handoffId, handoff);
  return json(201, { handoff_id: handoffId, claim_url: handoff.claim_url, expires_at: handoff.expires_at });
}
