// Why a backfill waits or failed, in the admin's language, from its stored facts (Backfill.errorDetails,
// app/sync/reasons.ts). In English, and for a backfill written before the facts were stored, the English words
// stored with it. Client-safe.
import type { Translator } from "../i18n/translate";
import type { BackfillProblem } from "../sync/reasons";

const CODES = new Set<BackfillProblem["code"]>([
  "bulk_gone",
  "bulk_failed",
  "bulk_cancelled",
  "bulk_expired",
  "bulk_file",
  "customer_disconnected",
  "fetch_unreachable",
  "fetch_failed",
]);

export function backfillErrorWords(
  { t, storedWordsFit }: Pick<Translator, "t" | "storedWordsFit">,
  b: { error: string | null; errorDetails?: unknown },
): { text: string; shopifyCode?: string } | null {
  const d = b.errorDetails as BackfillProblem | null | undefined;
  if (storedWordsFit || !d || typeof d !== "object" || !CODES.has(d.code)) return b.error ? { text: b.error } : null;
  const parts = [t(`home.backfills.error.${d.code}`)];
  if (d.again) parts.push(t("home.backfills.again"));
  if (d.retrying) parts.push(t("home.backfills.retrying"));
  return { text: parts.join(" "), shopifyCode: d.shopifyCode };
}
