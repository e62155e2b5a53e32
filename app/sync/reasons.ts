// Why an import record is waiting, skipped or failed: a stable code (SyncRecord.reasonCode, what the code looks
// records up by and the admin can filter on) and the merchant-facing words built from it here, in one place.
// Rewording a message never changes which records are woken. Client-safe: no server imports.

export const SYNC_REASON_CODES = [
  // waiting for something outside the import
  "settings_missing",
  "needs_reconnect",
  "reconnect_required",
  "order_pending",
  "order_moved",
  "order_not_found",
  // skipped: nothing to import (final for this content)
  "not_connected",
  "no_customer",
  "order_not_imported",
  "no_lines",
  "cancelled",
  // failed: the content cannot be sent, or the service refused it
  "missing_id",
  "missing_date",
  "too_many_lines",
  "invalid_data",
  "rejected",
  // pending again after a temporary failure, and what ends retrying
  "retrying",
  "attempts_exhausted",
  "lease_expired",
] as const;

export type SyncReasonCode = (typeof SYNC_REASON_CODES)[number];

/** Small facts some messages carry (the service's message, counts, the order's own reason …). */
export interface ReasonDetails {
  /** The grant's status reason, the service's message, the order record's reason or a validation summary. */
  detail?: string | null;
  /** "order" | "shipment" | "fulfillment". */
  noun?: string;
  count?: number;
  max?: number;
  attempts?: number;
  maxAttempts?: number;
  /** "05:14:00" (UTC) for retries. */
  at?: string;
}

const attemptsText = (n: number) => `${n} attempt${n === 1 ? "" : "s"}`;

const WORDS: Record<SyncReasonCode, (d: ReasonDetails) => string> = {
  settings_missing: () => "The Merchant Integration Service is not set up for this shop yet (Settings).",
  needs_reconnect: (d) =>
    `The customer's workspace connection must be reconnected${d.detail ? ` (${d.detail})` : ""}. Waiting for them to reconnect; nothing is lost.`,
  reconnect_required: (d) =>
    `${d.detail ?? "The service refused the customer's connection."} Waiting for the customer to reconnect; nothing is lost.`,
  order_pending: () => "Waiting for its order to be imported first.",
  order_moved: () => "Waiting for its order to be imported into the customer's current workspace first.",
  order_not_found: () => "Waiting for the service to have its order; will try again.",
  not_connected: () => "Customer has not connected a workspace. The order is imported as soon as they connect one.",
  no_customer: () => "The order has no customer, so there is no workspace to import it into.",
  order_not_imported: (d) => `Its order was not imported: ${d.detail ?? "skipped"}`,
  no_lines: (d) =>
    d.noun === "shipment"
      ? "Nothing to import: the fulfillment has no shipped lines."
      : "Nothing left to import: every line of this order was removed.",
  cancelled: () => "The fulfillment was cancelled in Shopify, so there is no shipment to import.",
  missing_id: (d) =>
    d.noun === "shipment"
      ? "Shopify sent a fulfillment without its id or its order's id."
      : "Shopify sent an order without an id.",
  missing_date: (d) =>
    d.noun === "shipment"
      ? "The fulfillment has no date, which the service requires."
      : "The order has no creation date, which the service requires.",
  too_many_lines: (d) =>
    `The ${d.noun} has ${d.count} lines; the service accepts at most ${d.max} lines per ${d.noun}.`,
  invalid_data: (d) => `The ${d.noun} cannot be sent as it is: ${d.detail}.`,
  rejected: (d) => d.detail ?? "The service refused this import.",
  retrying: (d) => `${d.detail} Will try again at ${d.at} UTC (attempt ${d.attempts} of ${d.maxAttempts}).`,
  attempts_exhausted: (d) => `Gave up after ${attemptsText(d.attempts ?? 0)}. ${d.detail}`,
  lease_expired: (d) => `Gave up after ${d.attempts} attempts: the worker stopped while processing it each time.`,
};

/** The merchant-facing words for a code. */
export function reasonText(code: SyncReasonCode, details: ReasonDetails = {}): string {
  return WORDS[code](details);
}

/** The two record fields a reason sets, always together. */
export function because(
  code: SyncReasonCode,
  details: ReasonDetails = {},
): { reasonCode: SyncReasonCode; reason: string } {
  return { reasonCode: code, reason: reasonText(code, details) };
}
