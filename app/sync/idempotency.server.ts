// Idempotency keys derived from what is sent: the same shop, resource and content on top of the same last accepted
// import always give the same key (a redelivered webhook or a retried job is replayed by the service, never imported
// twice), and changed content gives a new key (a changed order is sent again and the service answers "updated").
// Content that comes back to an earlier version (A → B → A) follows another accepted import, so it gets a new key
// too: the service keeps keys 24 h and would otherwise replay A's first answer and keep B.
import { sha256 } from "../lib/hash";

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
    DATE_FIELDS.has(key) && typeof value === "string" && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : value,
  );
  return sha256(canonical);
}

/**
 * 1 to 255 visible ASCII characters (docs/service.md): `sync-o-<64 hex>` or `sync-s-<64 hex>`. `previousImport` is when
 * the service last accepted this resource (`SyncRecord.importedAt`; none for a first import).
 */
export function idempotencyKey(shop: string, kind: SyncKind, externalId: string, bodyHash: string, previousImport?: Date | null): string {
  const parts = [shop, kind, externalId, bodyHash];
  if (previousImport) parts.push(previousImport.toISOString());
  const digest = sha256(parts.join("\0"));
  return `sync-${kind === "order" ? "o" : "s"}-${digest}`;
}
