// One way to put the admin's words on a page, shared by routes, components and server modules: t(key, variables)
// with plurals chosen by Intl.PluralRules for {count}, and dates, numbers and money through Intl for the same
// locale. A key missing from a language falls back to English (tests keep every language complete). Client-safe.
import { CATALOG, DEFAULT_LOCALE, type Message, type MessageKey } from "./catalog";

export type Vars = Readonly<Record<string, string | number | null | undefined>>;

export interface Translator {
  locale: string;
  /**
   * The app stores its own words (a record's reason, an attempt's message, a backfill's error, a check's report)
   * in English, beside the facts they were built from. In English a page shows those stored words as they are (the
   * same words as the logs); in any other language it words the stored facts.
   */
  storedWordsFit: boolean;
  t(key: MessageKey, vars?: Vars): string;
  /** "22/11/2026 05:14 UTC": every time is shown in UTC, so the server's and the browser's renderings match. */
  dateTime(value: string | Date | null): string;
  /** "22/11/2026" (UTC). */
  date(value: string | Date | null): string;
  number(value: number): string;
  /** An amount in minor units of `currency` ("USD"); just the number when the currency is unknown. */
  money(minor: number, currency: string | null): string;
}

const EN = CATALOG.get(DEFAULT_LOCALE)!;

function pick(message: Message, count: unknown, rules: Intl.PluralRules): string {
  if (typeof message === "string") return message;
  const n = Number(count);
  const form = Number.isFinite(n) ? rules.select(n) : "other";
  return message[form] ?? message.other ?? "";
}

export function translator(locale: string): Translator {
  const messages = CATALOG.get(locale) ?? EN;
  const lang = CATALOG.has(locale) ? locale : DEFAULT_LOCALE;
  const rules = new Intl.PluralRules(lang);
  const numbers = new Intl.NumberFormat(lang);
  const dateParts = { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" } as const;
  const dates = new Intl.DateTimeFormat(lang, dateParts);
  const times = new Intl.DateTimeFormat(lang, { ...dateParts, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const asDate = (value: string | Date) => (typeof value === "string" ? new Date(value) : value);
  const t = (key: MessageKey, vars: Vars = {}) => {
    const message = messages[key] ?? EN[key] ?? key;
    return pick(message, vars.count, rules).replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = vars[name];
      if (value === undefined || value === null) return whole;
      return typeof value === "number" ? numbers.format(value) : value;
    });
  };
  return {
    locale: lang,
    storedWordsFit: lang === DEFAULT_LOCALE,
    t,
    dateTime: (value) => (value ? `${times.format(asDate(value))} UTC` : "—"),
    date: (value) => (value ? dates.format(asDate(value)) : "—"),
    number: (value) => numbers.format(value),
    money: (minor, currency) => {
      try {
        if (currency) {
          const format = new Intl.NumberFormat(lang, { style: "currency", currency });
          const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
          return format.format(minor / 10 ** digits);
        }
      } catch {
        // Not an ISO 4217 code: the bare amount below.
      }
      return numbers.format(minor / 100);
    },
  };
}
