// POST /api/v1/orders and /api/v1/shipments, in the exact order of checks of contract 2.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { describeIssues, OrderRequestSchema, ShipmentRequestSchema } from "../app/service/schemas";
import type { OrderRequest, ShipmentRequest } from "../app/service/schemas";
import type { Context } from "./context";
import { errorReply, header, isValidIdempotencyKey, json, mediaType, parseJsonBody, stringField, type Reply } from "./http";
import { scopedKey } from "./idempotency";
import type { IssuedToken } from "./oauth-state";

interface ImportKind<B> {
  endpoint: "orders" | "shipments";
  path: string;
  scope: "orders:write" | "shipments:write";
  externalIdField: string;
  schema: z.ZodType<B>;
  /** Step 7 and 8: checks against stored data, then the upsert. */
  save(ctx: Context, token: IssuedToken, body: B, now: number): Reply;
}

/** RFC 6750 3.1: no credentials → no error attribute; bad credentials → error="invalid_token". */
function authenticate(ctx: Context, req: IncomingMessage, now: number): { token: IssuedToken } | { reply: Reply } {
  const authorization = header(req, "authorization");
  const match = authorization?.match(/^Bearer(?:\s+(.*))?$/i);
  if (!match) {
    return {
      reply: errorReply(401, "invalid_token", "an Authorization: Bearer token is required", {
        "www-authenticate": 'Bearer realm="service"',
      }),
    };
  }
  const token = ctx.oauth.activeAccessToken((match[1] ?? "").trim(), now);
  if (!token) {
    return {
      reply: errorReply(401, "invalid_token", "the access token is unknown, expired or revoked", {
        "www-authenticate": 'Bearer realm="service", error="invalid_token"',
      }),
    };
  }
  return { token };
}

async function handleImport<B>(kind: ImportKind<B>, ctx: Context, req: IncomingMessage, bytes: Buffer): Promise<Reply> {
  const now = ctx.now();
  // 1. Token.
  const auth = authenticate(ctx, req, now);
  if ("reply" in auth) return auth.reply;
  const { token } = auth;
  const workspaceId = token.grant.workspaceId;
  const clientId = token.grant.clientId;
  const logged = (reply: Reply, externalId: string | null = null): Reply => ({ ...reply, workspaceId, externalId });

  // 2. Scope.
  if (!token.scopes.includes(kind.scope)) {
    return logged(
      errorReply(403, "insufficient_scope", `this endpoint needs the ${kind.scope} scope`, {
        "www-authenticate": `Bearer error="insufficient_scope", scope="${kind.scope}"`,
      }),
    );
  }

  // 3. Rate limit.
  const limited = ctx.rateLimiter.take(clientId, now);
  if (!limited.ok) return logged(errorReply(429, "rate_limited", "too many requests", limited.headers));

  // 4. Transport-level checks: 400. Content-Type is checked even for an empty body; a zero-length body is
  // then absent (→ 422 at step 6), not "not JSON".
  if (mediaType(req) !== "application/json") {
    return logged(errorReply(400, "invalid_request", "Content-Type must be application/json"));
  }
  const idempotencyKey = header(req, "idempotency-key");
  if (!isValidIdempotencyKey(idempotencyKey)) {
    return logged(errorReply(400, "invalid_request", "Idempotency-Key must be 1 to 255 visible ASCII characters"));
  }
  const parsed = parseJsonBody(bytes);
  if (!parsed.ok) return logged(errorReply(400, "invalid_request", "body is not JSON"));
  const externalId = stringField(parsed.value, kind.externalIdField);

  // 5. Idempotency, scoped to workspace and client; then 6 (schema), 7 and 8 (kind.save).
  const reply = await ctx.idempotency.run(
    scopedKey(kind.endpoint, [workspaceId, clientId], idempotencyKey),
    bytes,
    now,
    () => ctx.faults.afterKeyReserved(req.method ?? "POST", kind.path),
    () => {
      const result = kind.schema.safeParse(parsed.value);
      return result.success ? kind.save(ctx, token, result.data, now) : errorReply(422, "invalid_payload", describeIssues(result.error));
    },
  );
  return logged(reply, externalId);
}

const ORDERS: ImportKind<OrderRequest> = {
  endpoint: "orders",
  path: "/api/v1/orders",
  scope: "orders:write",
  externalIdField: "external_order_id",
  schema: OrderRequestSchema,
  save(ctx, token, body, now) {
    const workspaceId = token.grant.workspaceId;
    const existing = ctx.store.findOrder(workspaceId, body.external_order_id);
    const at = new Date(now).toISOString();
    const order = {
      id: existing?.id ?? randomUUID(),
      workspace_id: workspaceId,
      client_id: token.grant.clientId,
      external_id: body.external_order_id,
      status: existing ? ("updated" as const) : ("imported" as const),
      created_at: existing?.created_at ?? at,
      updated_at: at,
      body,
    };
    ctx.store.saveOrder(order);
    return json(201, { id: order.id, status: order.status, external_id: order.external_id });
  },
};

const SHIPMENTS: ImportKind<ShipmentRequest> = {
  endpoint: "shipments",
  path: "/api/v1/shipments",
  scope: "shipments:write",
  externalIdField: "external_shipment_id",
  schema: ShipmentRequestSchema,
  save(ctx, token, body, now) {
    const workspaceId = token.grant.workspaceId;
    // 7. The order must have been imported into this workspace; lines are checked against its latest import.
    const order = ctx.store.findOrder(workspaceId, body.external_order_id);
    if (!order) return errorReply(422, "order_not_found", `no order ${body.external_order_id} in this workspace`);
    const unknown = body.lines.findIndex((l) => !ctx.store.orderHasLine(order, l.external_order_line_id));
    if (unknown >= 0) {
      return errorReply(
        422,
        "invalid_payload",
        `lines[${unknown}].external_order_line_id: not a line of order ${body.external_order_id}`,
      );
    }
    const existing = ctx.store.findShipment(workspaceId, body.external_shipment_id);
    const at = new Date(now).toISOString();
    const shipment = {
      id: existing?.id ?? randomUUID(),
      workspace_id: workspaceId,
      client_id: token.grant.clientId,
      external_id: body.external_shipment_id,
      status: existing ? ("updated" as const) : ("imported" as const),
      created_at: existing?.created_at ?? at,
      updated_at: at,
      body,
    };
    ctx.store.saveShipment(shipment);
    return json(201, { id: shipment.id, status: shipment.status, external_id: shipment.external_id });
  },
};

export const importOrder = (ctx: Context, req: IncomingMessage, bytes: Buffer) => handleImport(ORDERS, ctx, req, bytes);
export const importShipment = (ctx: Context, req: IncomingMessage, bytes: Buffer) => handleImport(SHIPMENTS, ctx, req, bytes);
