// What "Check connection" found, in the admin's language: the settings page's report and the home page's last
// check. Worded from the finding kept with it (CheckFinding); in English, and for a check made before findings were
// kept, the English line stored with it. Hosts, statuses and code-like errors are data. Client-safe.
import type { Translator } from "../i18n/translate";
import type { CheckFinding } from "../connections/settings-check.server";

const CODES = new Set<CheckFinding["code"]>([
  "incomplete",
  "signature_ok",
  "signature_rejected",
  "unreachable",
  "timeout",
  "rate_limited",
  "server_error",
  "unexpected",
  "client_ok",
  "client_rejected",
  "client_unreachable",
  "client_failed",
  "undecryptable",
  "not_configured",
  "all_ok",
]);

const isFinding = (value: unknown): value is CheckFinding =>
  !!value && typeof value === "object" && CODES.has((value as CheckFinding).code);

export function checkWords(
  { t, storedWordsFit }: Pick<Translator, "t" | "storedWordsFit">,
  check: { message: string; finding?: unknown },
): string {
  if (storedWordsFit || !isFinding(check.finding)) return check.message;
  const { code, host, status, what } = check.finding;
  return t(`settings.check.finding.${code}`, { host: host ?? "", status: status ?? "", what: what ?? "" });
}
