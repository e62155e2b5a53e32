// Which of the app's languages a locale from Shopify means: "fr", "fr-CA", "de_DE", "pt-BR" → a language the app has
// (the exact tag first, then its language), else English. The answer is always one of the catalog's own names,
// never the input: a `locale` from a URL or a header cannot reach a path, a file name or the page. Client-safe.
import { CATALOG, DEFAULT_LOCALE, type MessageKey } from "./catalog";
import { translator, type Vars } from "./translate";

/** The header the admin's own requests carry the page's language in (app/components/i18n.tsx). */
export const LOCALE_HEADER = "X-App-Locale";

const TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/;

export function resolveLocale(raw: unknown): string {
  if (typeof raw !== "string" || raw.length > 35 || !TAG.test(raw)) return DEFAULT_LOCALE;
  const [language, ...rest] = raw.split(/[-_]/);
  const lang = language.toLowerCase();
  const region = rest.find((part) => /^(?:[A-Za-z]{2}|\d{3})$/.test(part));
  for (const candidate of region ? [`${lang}-${region.toUpperCase()}`, lang] : [lang]) {
    for (const name of CATALOG.keys()) if (name === candidate) return name;
  }
  return DEFAULT_LOCALE;
}

/**
 * A page's title for its `meta` (which cannot use React's context): in the language the admin layout chose, read
 * from the matched routes' data.
 */
export function titleOf(
  matches: readonly { id: string; data?: unknown }[] | undefined,
  key: MessageKey,
  vars?: Vars,
): string {
  const layout = (matches ?? []).find((m) => m.id === "routes/app" || m.id === "routes/auth.login")?.data;
  const locale = (layout as { locale?: unknown } | undefined)?.locale;
  return translator(resolveLocale(locale)).t(key, vars);
}
