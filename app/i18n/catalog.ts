// The admin's words in every language the app has: one JSON file per language in app/locales/admin/, found at build
// time through Vite's static import map (import.meta.glob), so adding a language is adding a file and nothing else.
// The locale names are the files' names: a request's `locale` only ever selects one of them (./locale.ts).
// Client-safe: the same map on the server and in the browser.
import english from "../locales/admin/en.json";

/** A message: plain text with {variables}, or its plural forms (Intl.PluralRules categories) chosen by {count}. */
export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Messages = Readonly<Record<string, Message>>;
/** Every key English has: the source language, which every other file must match (test/i18n). */
export type MessageKey = keyof typeof english;

export const DEFAULT_LOCALE = "en";

// Vite replaces the glob with the files (client, server build, tests). A script run by tsx (the bench) has no
// import.meta.glob: English alone, which is what it would get anyway.
let FILES: Record<string, Messages>;
try {
  FILES = import.meta.glob<Messages>("../locales/admin/*.json", { eager: true, import: "default" });
} catch {
  FILES = { "../locales/admin/en.json": english };
}

/** Locale name ("fr", "pt-BR") → its messages. */
export const CATALOG: ReadonlyMap<string, Messages> = new Map(
  Object.entries(FILES).map(([file, messages]) => [file.slice(file.lastIndexOf("/") + 1, -".json".length), messages]),
);

export const LOCALES: readonly string[] = [...CATALOG.keys()].sort();
