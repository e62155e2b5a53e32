// The admin's language in React: every component reads its words through useI18n() (app/i18n/translate.ts). The
// layout route (app/routes/app.tsx) provides it from the request's locale, and after the first load the browser's
// own requests to the app (page data, actions, the CSV export) carry that language in a header, so pages reached
// by client-side navigation, which Shopify's `locale` parameter no longer rides on, stay in it.
import { createContext, useContext, useEffect, useMemo, type ReactNode } from "react";
import { translator, type Translator } from "../i18n/translate";
import { DEFAULT_LOCALE } from "../i18n/catalog";
import { LOCALE_HEADER as HEADER } from "../i18n/locale";

const I18nContext = createContext<Translator>(translator(DEFAULT_LOCALE));

export const useI18n = () => useContext(I18nContext);

let current = DEFAULT_LOCALE;
let installed = false;

/** Same-origin fetches carry the page's language (App Bridge wraps fetch the same way to add the session token). */
function sendLocaleWithRequests(locale: string) {
  current = locale;
  if (installed || typeof window === "undefined") return;
  installed = true;
  const original = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
    if (url.origin !== window.location.origin) return original(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has(HEADER)) headers.set(HEADER, current);
    return original(input, { ...init, headers });
  };
}

export function I18nProvider({ locale, children }: { locale: string; children: ReactNode }) {
  const value = useMemo(() => translator(locale), [locale]);
  useEffect(() => sendLocaleWithRequests(value.locale), [value.locale]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}
