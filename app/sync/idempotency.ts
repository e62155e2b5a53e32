// Idempotency keys derived from what is sent: the same shop, resource and content always give the same key (a
// redelivered webhook or a retried job is replayed by the service, never imported twice), and changed content
// gives a new key (a changed order is sent again and the service answers "updated").
import { createHash } from "node:crypto";

export type SyncKind = "order" | "shipment";

/** The exact bytes sent for a request; mapping builds objects in a fixed key order, so this is stable. */
export function requestBody(request: unknown): string {
  return JSON.stringify(request);
}

export function contentHash(request: unknown): string {
  return createHash("sha256").update(requestBody(request)).digest("hex");
}

/** 1 to 255 visible ASCII characters (contract 3): `sync-o-<64 hex>` or `sync-s-<64 hex>`. */
export function idempotencyKey(shop: string, kind: SyncKind, externalId: string, bodyHash: string): string {
  const digest = createHash("sha256").update([shop, kind, externalId, bodyHash].join("\0")).digest("hex");
  return `sync-${kind === "order" ? "o" : "s"}-${digest}`;
}
