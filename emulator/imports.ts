// POST /api/v1/orders and /api/v1/shipments, in the exact order of checks of docs/service.md.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { describeIssues, OrderRequestSchema, ShipmentRequestSchema } from "../app/service/schemas";
import type { OrderRequest, ShipmentRequest } from "../app/service/schemas";
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
import type { IssuedToken } from "./oauth-state";
import type { ImportedRecord, Store } from "./store";

interface ImportKind<B> {
  endpoint: "orders" | "shipments";
  path: string;
  scope: "orders:write" | "shipments:write";
  /** The body field holding the merchant's external id (read before validation too, for the request log). */
  externalIdField: string;
  schema: z.ZodType<B>;
  externalId(body: B): string;
  /** Step 7: checks against stored data; an error answer, or undefined when the import may go ahead. */
  check?(store: Store, workspaceId: string, body: B): Reply | undefined;
  find(store: Store, workspaceId: string, externalId: string): ImportedRecord<B> | undefined;
  save(store: Store, record: ImportedRecord<B>): void;
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

  // 5. Idempotency, scoped to workspace and client; then 6 (schema), 7 and 8 (upsert).
  const reply = await ctx.idempotency.run(
    scopedKey(kind.endpoint, [workspaceId, clientId], idempotencyKey),
    bytes,
    now,
    () => ctx.faults.afterKeyReserved(req.method ?? "POST", kind.path),
    () => {
      const result = kind.schema.safeParse(parsed.value);
      return result.success
        ? upsert(kind, ctx, token, result.data, now)
        : errorReply(422, "invalid_payload", describeIssues(result.error));
    },
  );
  return logged({ ...reply, headers: { ...limited.headers, ...reply.headers } }, externalId);
}

/** Steps 7 and 8: the upsert keyed by external id within the workspace (docs/service.md, "Endpoints"). */
function upsert<B>(kind: ImportKind<B>, ctx: Context, token: IssuedToken, body: B, now: number): Reply {
  const workspaceId = token.grant.workspaceId;
  const refused = kind.check?.(ctx.store, workspaceId, body);
  if (refused) return refused;
  const externalId = kind.externalId(body);
  const existing = kind.find(ctx.store, workspaceId, externalId);
  const at = new Date(now).toISOString();
  const record: ImportedRecord<B> = {
    id: existing?.id ?? randomUUID(),
    workspace_id: workspaceId,
    client_id: token.grant.clientId,
    external_id: externalId,
    status: existing ? "updated" : "imported",
    created_at: existing?.created_at ?? at,
    updated_at: at,
    body,
  };
  kind.save(ctx.store, record);
  return json(201, { id: record.id, status: record.status, external_id: record.external_id });
}

const ORDERS: ImportKind<OrderRequest> = {
  endpoint: "orders",
  path: "/api/v1/orders",
  scope: "orders:write",
  externalIdField: "external_order_id",
  schema: OrderRequestSchema,
  externalId: (body) => body.external_order_id,
  find: (store, workspaceId, externalId) => store.findOrder(workspaceId, externalId),
  save: (store, record) => store.saveOrder(record),
};

const SHIPMENTS: ImportKind<ShipmentRequest> = {
  endpoint: "shipments",
  path: "/api/v1/shipments",
  scope: "shipments:write",
  externalIdField: "external_shipment_id",
  schema: ShipmentRequestSchema,
  externalId: (body) => body.external_shipment_id,
  // The order must have been imported into this workspace; lines are checked against its latest import.
  check(store, workspaceId, body) {
    const order = store.findOrder(workspaceId, body.external_order_id);
    if (!order) return errorReply(422, "order_not_found", `no order ${body.external_order_id} in this workspace`);
    const unknown = body.lines.findIndex((l) => !store.orderHasLine(order, l.external_order_line_id));
    if (unknown < 0) return undefined;
    return errorReply(
      422,
      "invalid_payload",
      `lines[${unknown}].external_order_line_id: not a line of order ${body.external_order_id}`,
    );
  },
  find: (store, workspaceId, externalId) => store.findShipment(workspaceId, externalId),
  save: (store, record) => store.saveShipment(record),
};

export const importOrder = (ctx: Context, req: IncomingMessage, bytes: Buffer) => handleImport(ORDERS, ctx, req, bytes);
export const importShipment = (ctx: Context, req: IncomingMessage, bytes: Buffer) =>
  handleImport(SHIPMENTS, ctx, req, bytes);
