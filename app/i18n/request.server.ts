// The language of one admin request, from what Shopify says: the `locale` parameter it adds to the embedded app's
// URL, else the language the page itself was opened in (the X-App-Locale header the admin's own requests carry
// after the first load: app/components/i18n.tsx), else the staff member's locale on an online session, else English.
// Each goes through resolveLocale: an unknown or malformed value is English.
import { LOCALE_HEADER, resolveLocale } from "./locale";
import { DEFAULT_LOCALE } from "./catalog";

interface MaybeOnlineSession {
  onlineAccessInfo?: { associated_user?: { locale?: string } } | null;
}

export function requestLocale(request: Request, session?: MaybeOnlineSession | null): string {
  const candidates = [
    new URL(request.url).searchParams.get("locale"),
    request.headers.get(LOCALE_HEADER),
    session?.onlineAccessInfo?.associated_user?.locale,
  ];
  for (const candidate of candidates) if (candidate) return resolveLocale(candidate);
  return DEFAULT_LOCALE;
}
