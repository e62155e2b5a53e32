// Shopify webhook payloads (REST shapes: orders/create, orders/updated, fulfillments/create, fulfillments/update)
// → the service's OrderRequest / ShipmentRequest. Pure functions: no I/O, no clock. Every outcome that cannot be
// imported says why in words a merchant can read, and whether it is final ("skipped": nothing to do; "failed":
// the data cannot be sent as it is). And the idempotency key a request is sent under (below).
import { sha256 } from "../lib/hash";
import {
  describeIssues,
  issuePaths,
  OrderRequestSchema,
  ShipmentRequestSchema,
  type OrderLine,
  type OrderRequest,
  type ShipmentRequest,
} from "../service/schemas";
import { because, type ReasonDetails, type SyncReasonCode } from "./reasons";

export const MAX_LINES = 500;

export type Mapped<T> =
  | { ok: true; request: T }
  | {
      ok: false;
      state: "skipped" | "failed";
      reasonCode: SyncReasonCode;
      reason: string;
      reasonDetails: ReasonDetails;
    };

const refused = (state: "skipped" | "failed", code: SyncReasonCode, details: ReasonDetails = {}): Mapped<never> => ({
  ok: false,
  state,
  ...because(code, details),
});

type Id = string | number | bigint | null | undefined;

// Failed, not skipped: there is something to import, but the service cannot take it as it is.
const tooManyLines = (count: number, noun: "order" | "shipment"): Mapped<never> =>
  refused("failed", "too_many_lines", { noun, count, max: MAX_LINES });

export interface ShopifyLineItem {
  id: Id;
  title?: string | null;
  name?: string | null;
  quantity?: number | null;
  current_quantity?: number | null;
  fulfillable_quantity?: number | null;
  sku?: string | null;
  product_id?: Id;
  variant_id?: Id;
}

export interface ShopifyOrder {
  id: Id;
  name?: string | null;
  created_at?: string | null;
  updated_at?: string | null;
  currency?: string | null;
  cancelled_at?: string | null;
  customer?: { id?: Id } | null;
  line_items?: ShopifyLineItem[] | null;
  refunds?: unknown[] | null;
}

export interface ShopifyFulfillment {
  id: Id;
  order_id: Id;
  created_at?: string | null;
  updated_at?: string | null;
  status?: string | null;
  tracking_company?: string | null;
  tracking_number?: string | null;
  tracking_numbers?: string[] | null;
  line_items?: { id: Id; quantity?: number | null }[] | null;
}

/** Shopify ids are 64-bit; JSON numbers above 2^53 lose digits, so ids are taken as given and turned to strings. */
export function idString(id: Id): string | undefined {
  if (id === null || id === undefined || id === "") return undefined;
  const s = String(id);
  const gid = /^gid:\/\/shopify\/\w+\/(\d+)/.exec(s);
  return gid ? gid[1] : s;
}

/**
 * The order's name as a merchant knows it ("#1001"), from an order or a fulfillment payload (a fulfillment is named
 * after its order: "#1001.2"). Bounded: it is stored and searched, and a payload is not trusted to be sane.
 */
export function orderNameOf(kind: "order" | "shipment", payload: { name?: unknown }): string | undefined {
  if (typeof payload.name !== "string" || payload.name.length === 0 || payload.name.length > 64) return undefined;
  return kind === "shipment" ? payload.name.replace(/\.\d+$/, "") : payload.name;
}

/** RFC 3339 with a zone as the service wants it; Shopify's `2026-11-01T10:00:00-04:00` passes unchanged. */
function toDateTime(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The Shopify order id a webhook payload belongs to (orders: `id`, fulfillments: `order_id`). */
export function orderIdOf(kind: "order" | "shipment", payload: unknown): string | undefined {
  const p = (payload ?? {}) as Record<string, Id>;
  return idString(kind === "order" ? p.id : p.order_id);
}

/** The queue key that runs one order's jobs one at a time (queue.server.ts), for the order and its shipments. */
export const orderKeyOf = (orderId: string) => `order:${orderId}`;

export function customerIdOf(order: ShopifyOrder): string | undefined {
  return idString(order.customer?.id);
}

/** Quantity still on the order: `current_quantity` (after edits and removals) when Shopify sends it. */
function remainingQuantity(line: ShopifyLineItem): number {
  if (typeof line.current_quantity === "number") return line.current_quantity;
  return typeof line.quantity === "number" ? line.quantity : 0;
}

export function mapOrder(order: ShopifyOrder): Mapped<OrderRequest> {
  const orderId = idString(order.id);
  if (!orderId) return refused("failed", "missing_id", { noun: "order" });
  const orderedAt = toDateTime(order.created_at);
  if (!orderedAt) return refused("failed", "missing_date", { noun: "order" });

  const lines: OrderLine[] = [];
  for (const item of order.line_items ?? []) {
    const quantity = remainingQuantity(item);
    if (!(quantity > 0)) continue; // removed by an order edit (current_quantity 0)
    const lineId = idString(item.id);
    if (!lineId) continue;
    const line: OrderLine = { external_line_id: lineId, title: item.title ?? item.name ?? "", quantity };
    const productId = idString(item.product_id);
    if (productId) line.external_product_id = productId;
    if (item.sku) line.merchant_sku = item.sku;
    lines.push(line);
  }
  if (lines.length === 0) {
    return refused("skipped", "no_lines", { noun: "order" });
  }
  if (lines.length > MAX_LINES) return tooManyLines(lines.length, "order");
  const request: OrderRequest = { external_order_id: orderId, ordered_at: orderedAt, lines };
  if (order.currency) request.currency = order.currency;
  return validated(OrderRequestSchema, request, "order");
}

export function mapFulfillment(fulfillment: ShopifyFulfillment): Mapped<ShipmentRequest> {
  const shipmentId = idString(fulfillment.id);
  const orderId = idString(fulfillment.order_id);
  if (!shipmentId || !orderId) {
    return refused("failed", "missing_id", { noun: "shipment" });
  }
  if (fulfillment.status === "cancelled") {
    return refused("skipped", "cancelled");
  }
  const shippedAt = toDateTime(fulfillment.created_at);
  if (!shippedAt) return refused("failed", "missing_date", { noun: "shipment" });
  const lines = (fulfillment.line_items ?? [])
    .map((item) => ({ external_order_line_id: idString(item.id) ?? "", quantity: item.quantity ?? 0 }))
    .filter((line) => line.external_order_line_id && line.quantity > 0);
  if (lines.length === 0) {
    return refused("skipped", "no_lines", { noun: "shipment" });
  }
  if (lines.length > MAX_LINES) return tooManyLines(lines.length, "shipment");
  const request: ShipmentRequest = {
    external_shipment_id: shipmentId,
    external_order_id: orderId,
    shipped_at: shippedAt,
    lines,
  };
  if (fulfillment.tracking_company) request.carrier = fulfillment.tracking_company;
  const tracking = fulfillment.tracking_number ?? fulfillment.tracking_numbers?.[0];
  if (tracking) request.tracking_number = tracking;
  return validated(ShipmentRequestSchema, request, "shipment");
}

function validated<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: unknown } | { success: false; error: Parameters<typeof describeIssues>[0] };
  },
  request: T,
  what: string,
): Mapped<T> {
  const parsed = schema.safeParse(request);
  if (parsed.success) return { ok: true, request };
  return refused("failed", "invalid_data", {
    noun: what,
    detail: describeIssues(parsed.error),
    fields: issuePaths(parsed.error),
  });
}

// Idempotency keys derived from what is sent: the same shop, resource and content on top of the same last accepted
// import always give the same key (a redelivered webhook or a retried job is replayed by the service, never imported
// twice), and changed content gives a new key (a changed order is sent again and the service answers "updated").
// Content that comes back to an earlier version (A → B → A) follows another accepted import, so it gets a new key
// too: the service keeps keys 24 h and would otherwise replay A's first answer and keep B.
export type SyncKind = "order" | "shipment";

/** The exact bytes sent for a request; mapping builds objects in a fixed key order, so this is stable. */
function requestBody(request: unknown): string {
  return JSON.stringify(request);
}

export function contentHash(request: unknown): string {
  return sha256(requestBody(request));
}

const DATE_FIELDS = new Set(["ordered_at", "shipped_at"]);

/**
 * What the request says, not how its bytes spell it: dates as UTC instants. Webhooks write dates in the shop's
 * zone and the Admin API (backfill) in UTC, so the same version of an order would otherwise look changed and be
 * sent again. Decides "already at the service"; the key still comes from the exact bytes (contentHash), since the
 * service fingerprints those.
 */
export function meaningHash(request: unknown): string {
  const canonical = JSON.stringify(request, (key, value) =>
    DATE_FIELDS.has(key) && typeof value === "string" && !Number.isNaN(Date.parse(value))
      ? new Date(value).toISOString()
      : value,
  );
  return sha256(canonical);
}

/**
 * 1 to 255 visible ASCII characters (contract 3): `sync-o-<64 hex>` or `sync-s-<64 hex>`. `previousImport` is when
 * the service last accepted this resource (`SyncRecord.importedAt`; none for a first import).
 */
export function idempotencyKey(
  shop: string,
  kind: SyncKind,
  externalId: string,
  bodyHash: string,
  previousImport?: Date | null,
): string {
  const parts = [shop, kind, externalId, bodyHash];
  if (previousImport) parts.push(previousImport.toISOString());
  const digest = sha256(parts.join("\0"));
  return `sync-${kind === "order" ? "o" : "s"}-${digest}`;
}
