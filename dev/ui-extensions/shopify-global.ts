// What the stand-in implements of the `shopify` global Shopify's runtime gives a customer account UI extension, for
// this app's extensions to run outside Shopify: in the DOM tests (happy-dom) and on the demo's customer account pages
// (a real browser, where this file is bundled for the page). The hosts hand the target only the members Shopify's
// types give it (./strict-api.ts), so what is here for one target is not thereby given to another. Session tokens
// come from the caller (minted with the app's secret on the server side, never in the page); translations from the
// extension's own locales/*.json, as Shopify reads them. `extra` adds a target's own API (order, data, …).

export interface ShopifyGlobalOptions {
  /** What shopify.sessionToken.get() resolves to (a fresh token per call, like Shopify's). */
  sessionToken: () => Promise<string>;
  /** The extension's locale file for `locale` (locales/<locale>.json or en.default.json). */
  translations: Record<string, unknown>;
  locale: string;
  target: string;
  apiVersion?: string;
  /** Target-specific API, e.g. { order: signalOf({ id, name }) } for an order status block. */
  extra?: Record<string, unknown>;
}

/** A read-only value shaped like Shopify's SubscribableSignalLike (value, subscribe). */
export function signalOf<T>(value: T) {
  return { value, current: value, subscribe: (_cb: (value: T) => void) => () => undefined };
}

function lookup(translations: Record<string, unknown>, key: string): unknown {
  let node: unknown = translations;
  for (const part of key.split(".")) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Shopify's i18n.translate: dotted keys, {{name}} replacements, the key itself when it is missing. */
export function translator(translations: Record<string, unknown>) {
  return (key: string, replacements: Record<string, unknown> = {}) => {
    const found = lookup(translations, key);
    if (typeof found !== "string") return key;
    return found.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
      name in replacements ? String(replacements[name]) : whole,
    );
  };
}

export function createShopifyGlobal(options: ShopifyGlobalOptions) {
  const { locale } = options;
  return {
    extensionPoint: options.target,
    extension: { target: options.target, apiVersion: options.apiVersion ?? "2026-07" },
    version: options.apiVersion ?? "2026-07",
    sessionToken: { get: options.sessionToken },
    i18n: {
      translate: translator(options.translations),
      formatDate: (date: Date, opts?: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, opts).format(date),
      formatNumber: (n: number | bigint, opts?: Intl.NumberFormatOptions) =>
        new Intl.NumberFormat(locale, opts).format(n),
      formatCurrency: (n: number | bigint, opts?: Intl.NumberFormatOptions) =>
        new Intl.NumberFormat(locale, { style: "currency", currency: "EUR", ...opts }).format(n),
    },
    localization: { language: signalOf({ isoCode: locale }), extensionLanguage: signalOf({ isoCode: locale }) },
    settings: signalOf({}),
    // @shopify/ui-extensions/preact hands the runtime its Signal class; this stand-in's values are static.
    setSignals: () => undefined,
    ...options.extra,
  };
}
