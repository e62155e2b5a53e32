// The emulator's own surface under /_emulator (docs/service.md, "The emulator"): state, faults, reset, signing
// secret rotation.
import type { Context } from "./context";
import { errorReply, json, parseJsonBody, type Reply } from "./http";
import { FaultSchema } from "./faults";
import { describeIssues } from "../app/service/schemas";

export function state(ctx: Context): Reply {
  return json(200, ctx.store.snapshot());
}

export function addFault(ctx: Context, bytes: Buffer): Reply {
  const parsed = parseJsonBody(bytes);
  const result = FaultSchema.safeParse(parsed.ok ? (parsed.value ?? {}) : null);
  if (!result.success) return errorReply(400, "invalid_request", describeIssues(result.error));
  ctx.faults.add(result.data);
  return json(201, { fault: { ...result.data, times: result.data.times ?? 1 } });
}

/** Forgets everything but the clients and their current secrets. */
export function reset(ctx: Context): Reply {
  ctx.store.clear();
  ctx.nonces.clear();
  ctx.idempotency.clear();
  ctx.oauth.clear();
  ctx.faults.clear();
  ctx.rateLimiter.clear();
  return json(200, { reset: true });
}

export function rotateSigningSecret(ctx: Context, clientId: string): Reply {
  const secret = ctx.clients.rotate(clientId, ctx.now());
  if (!secret) return errorReply(404, "not_found", `no client ${clientId}`);
  return json(200, { signing_secret: secret });
}
