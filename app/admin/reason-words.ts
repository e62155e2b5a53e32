// Why a record of the sync log waits, was skipped or failed, in the admin's language: shared by its pages and the
// CSV export. Client-safe.
import type { Translator } from "../i18n/translate";

/**
 * Why a record waits, was skipped or failed, in the admin's language: from its reason code where the words need
 * nothing the record does not hold; otherwise the words stored with it (English, with the service's own message).
 */
export function reasonWords(
  t: Translator["t"],
  row: { reasonCode?: string | null; reason: string | null; kind: string; attempts: number; lines?: number | null },
): string | null {
  const noun = row.kind === "shipment" ? "shipment" : "order";
  switch (row.reasonCode) {
    case "settings_missing":
    case "order_pending":
    case "order_moved":
    case "order_not_found":
    case "not_connected":
    case "no_customer":
    case "cancelled":
      return t(`reason.${row.reasonCode}`);
    case "no_lines":
    case "missing_id":
    case "missing_date":
      return t(`reason.${row.reasonCode}.${noun}`);
    case "cart_lines":
      return t("log.cartLines", { count: row.lines ?? 0 });
    case "lease_expired":
      return t("reason.lease_expired", { count: row.attempts });
    default:
      return row.reason;
  }
}

/** A customer as the log shows them: their name from their grant, else "Customer <id>" in the admin's language. */
export function customerWords(t: Translator["t"], customer: string, customerId: string | null): string {
  return customerId && (customer === "" || customer === `Customer ${customerId}`)
    ? t("log.row.customer", { id: customerId })
    : customer;
}
