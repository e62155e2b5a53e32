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

/**
 * What went wrong with a send, as data (stored in SyncRecord.reasonDetails, worded in the admin's language):
 * the failure's kind (app/service/outcomes.server.ts, or "internal" for an error inside the app), the HTTP
 * status, and the service's own message when it gave one (quoted as its words, never reworded).
 */
// Type aliases, not interfaces: they are JSON values Prisma takes as they are (SyncRecord.reasonDetails).
export type FailureFacts = {
  kind: string;
  status?: number;
  serviceMessage?: string;
};

/** Why a grant needs reconnecting, for the reasons the app sets itself (CustomerGrant.statusReason). */
export const GRANT_REASONS = ["unreadable", "origin_changed", "no_refresh_token", "invalid_grant"] as const;
export type GrantReason = (typeof GRANT_REASONS)[number];

/** Small facts some messages carry (the service's message, counts, the order's own reason …). */
export type ReasonDetails = {
  /** The failure behind reconnect_required, rejected, retrying and attempts_exhausted. */
  failure?: FailureFacts;
  /** order_not_imported: the order record's own reason, as code and details. */
  order?: { code: string | null; details?: ReasonDetails | null };
  /** needs_reconnect: why the grant needs reconnecting, as the code of the app's own reason (GRANT_REASONS). */
  grantReason?: GrantReason;
  /** invalid_data: the paths of the fields that cannot be sent. */
  fields?: string[];
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
};

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

/** The three record fields a reason sets, always together: the code, its facts as data, and the English words. */
export function because(
  code: SyncReasonCode,
  details: ReasonDetails = {},
): { reasonCode: SyncReasonCode; reason: string; reasonDetails: ReasonDetails } {
  return { reasonCode: code, reason: reasonText(code, details), reasonDetails: details };
}

/**
 * Why a backfill waits or failed (Backfill.errorDetails), as data the admin words in its language; `error` keeps
 * the English words for logs. `again`: a new bulk run reads its orders once more.
 */
export type BackfillProblem = {
  code:
    | "bulk_gone"
    | "bulk_failed"
    | "bulk_cancelled"
    | "bulk_expired"
    | "bulk_file"
    | "customer_disconnected"
    | "fetch_unreachable"
    | "fetch_failed";
  /** Shopify's BulkOperationErrorCode (ACCESS_DENIED, INTERNAL_SERVER_ERROR, TIMEOUT), as Shopify spells it. */
  shopifyCode?: string;
  again?: boolean;
  /** Paged fetches: still retrying (true) or given up. */
  retrying?: boolean;
};
