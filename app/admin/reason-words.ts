// Why a record of the sync log waits, was skipped or failed, in the admin's language: shared by its pages and the
// CSV export. Worded at render time from the record's reason code and its facts (SyncRecord.reasonDetails); the
// service's own message is data, quoted as its words and never reworded. Client-safe.
import type { Translator } from "../i18n/translate";
import type { FailureFacts, ReasonDetails } from "../sync/reasons";

/** The kinds of failure the admin has words for (log.outcome.*); any other reads as log.outcome.other. */
export const OUTCOMES = new Set([
  "success",
  "replayed",
  "internal",
  "invalid_signature",
  "replayed_request",
  "idempotency_conflict",
  "invalid_payload",
  "invalid_request",
  "payload_too_large",
  "order_not_found",
  "invalid_token",
  "insufficient_scope",
  "reconnect_required",
  "rate_limited",
  "server_error",
  "network_error",
  "timeout",
  "unexpected_response",
]);

/** What one send or failure came to, in the admin's language. */
export function outcomeWords(t: Translator["t"], kind: string): string {
  return t(OUTCOMES.has(kind) ? (`log.outcome.${kind}` as "log.outcome.other") : "log.outcome.other");
}

/** A reason in words, and the service's own message when there is one (shown apart, marked as not translated). */
export interface ReasonParts {
  text: string;
  quote?: string;
  /** Names from the data (field paths), shown as they are. */
  data?: string;
}

type Row = {
  reasonCode?: string | null;
  reason: string | null;
  reasonDetails?: unknown;
  kind: string;
  attempts: number;
  lines?: number | null;
};

const asDetails = (value: unknown): ReasonDetails | null =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as ReasonDetails) : null;

function failureParts(t: Translator["t"], failure: FailureFacts | undefined): ReasonParts {
  return { text: outcomeWords(t, failure?.kind ?? "other"), quote: failure?.serviceMessage || undefined };
}

/** What wording a reason needs: the words, and whether the stored (English) words are this language's. */
export type Words = Pick<Translator, "t" | "storedWordsFit">;

/**
 * Why a record waits, was skipped or failed, in the admin's language: from its reason code and stored facts. In
 * English, and for a record written before the facts were stored (no reasonDetails), the English words stored
 * with it (they carry the facts inline: a host, a number of seconds, the service's own message).
 */
export function reasonParts(words: Words, row: Row): ReasonParts | null {
  const { t } = words;
  if (row.kind === "handoff") return handoffReason(words, row);
  const noun = row.kind === "shipment" ? "shipment" : "order";
  const d = asDetails(row.reasonDetails);
  switch (row.reasonCode) {
    case "settings_missing":
    case "order_pending":
    case "order_moved":
    case "order_not_found":
    case "not_connected":
    case "no_customer":
    case "cancelled":
      return { text: t(`reason.${row.reasonCode}`) };
    case "no_lines":
    case "missing_id":
    case "missing_date":
      return { text: t(`reason.${row.reasonCode}.${noun}`) };
    case "cart_lines":
      return { text: t("log.cartLines", { count: row.lines ?? 0 }) };
    case "lease_expired":
      return { text: t("reason.lease_expired", { count: row.attempts }) };
  }
  if (!d || (words.storedWordsFit && row.reason !== null)) return row.reason === null ? null : { text: row.reason };
  switch (row.reasonCode) {
    case "too_many_lines":
      return { text: t(`reason.too_many_lines.${noun}`, { count: d.count ?? 0, max: d.max ?? 0 }) };
    case "invalid_data":
      return { text: t(`reason.invalid_data.${noun}`), data: d.fields?.length ? d.fields.join(", ") : undefined };
    case "needs_reconnect":
      return d.grantReason
        ? { text: `${t(`reason.needs_reconnect.${d.grantReason}`)} ${t("reason.waitReconnect")}` }
        : { text: `${t("reason.needs_reconnect")} ${t("reason.waitReconnect")}`, quote: d.detail ?? undefined };
    case "reconnect_required": {
      const failure = failureParts(t, d.failure);
      return { text: `${failure.text} ${t("reason.waitReconnect")}`, quote: failure.quote };
    }
    case "rejected":
      return failureParts(t, d.failure);
    case "retrying": {
      const failure = failureParts(t, d.failure);
      const next = t("reason.retrying", { at: d.at ?? "", attempt: d.attempts ?? 0, max: d.maxAttempts ?? 0 });
      return { text: `${failure.text} ${next}`, quote: failure.quote };
    }
    case "attempts_exhausted": {
      const failure = failureParts(t, d.failure);
      return {
        text: `${t("reason.attempts_exhausted", { count: d.attempts ?? 0 })} ${failure.text}`,
        quote: failure.quote,
      };
    }
    case "order_not_imported": {
      const order = d.order?.code
        ? reasonParts(words, {
            ...row,
            reasonCode: d.order.code,
            reasonDetails: d.order.details ?? null,
            reason: null,
            kind: "order",
          })
        : null;
      return order
        ? { text: t("reason.order_not_imported", { why: order.text }), quote: order.quote }
        : { text: t("reason.order_not_imported.unknown") };
    }
    default:
      return row.reason === null ? null : { text: row.reason };
  }
}

/** Why a cart handoff failed (CartHandoff.reasonCode: the app's own refusals, else the service's failure kind). */
const HANDOFF_PROBLEMS = new Set([
  "empty_cart",
  "too_many_lines",
  "invalid_request",
  "disabled",
  "unavailable",
  "admin_unreachable",
]);

function handoffReason(words: Words, row: Row): ReasonParts | null {
  const { t } = words;
  if (row.reasonCode === "cart_lines") return { text: t("log.cartLines", { count: row.lines ?? 0 }) };
  if (row.reasonCode === "settings_missing") return { text: t("reason.settings_missing") }; // as an import's
  if (row.reason === null) return null;
  if (words.storedWordsFit || !row.reasonCode) return { text: row.reason };
  if (HANDOFF_PROBLEMS.has(row.reasonCode))
    return { text: t(`log.handoff.${row.reasonCode}` as "log.handoff.empty_cart") };
  return { text: outcomeWords(t, row.reasonCode) };
}

/** The same as one line (the CSV export): the service's words after a label, in quotes. */
export function reasonWords(words: Words, row: Row): string | null {
  const { t } = words;
  const parts = reasonParts(words, row);
  if (!parts) return null;
  if (parts.data) return `${parts.text} ${parts.data}`;
  return parts.quote ? `${parts.text} ${t("reason.serviceSaid", { words: parts.quote })}` : parts.text;
}

/** A customer as the log shows them: their name from their grant, else "Customer <id>" in the admin's language. */
export function customerWords(t: Translator["t"], customer: string, customerId: string | null): string {
  return customerId && (customer === "" || customer === `Customer ${customerId}`)
    ? t("log.row.customer", { id: customerId })
    : customer;
}
