// Shopify requires every page of an embedded app to say who may frame it (Content-Security-Policy frame-ancestors).
// Shopify's addDocumentResponseHeaders (app/entry.server.tsx) does it for the embedded pages, and only for a request
// that names a valid shop: `frame-ancestors https://<shop> https://admin.shopify.com …`. Pages that are never shown
// inside the admin (the login form, the service's OAuth return to the app) name no shop, so they say it here:
// nobody may frame them (clickjacking).
import type { HeadersFunction } from "@remix-run/node";

export const NEVER_FRAMED = "frame-ancestors 'none';";

/** A route's `headers` export for a page that is never embedded; its loader's headers (no-store …) are kept. */
export const neverFramedHeaders: HeadersFunction = ({ loaderHeaders, errorHeaders }) => {
  const headers = new Headers(errorHeaders ?? loaderHeaders);
  headers.set("Content-Security-Policy", NEVER_FRAMED);
  return headers;
};
