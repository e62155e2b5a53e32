import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { resolveLocale } from "./i18n/locale";
import { translator } from "./i18n/translate";

/** The page's language: the one the admin layout or the login page chose for this request (app/i18n/). */
function usePageLocale(): string {
  const admin = useRouteLoaderData<{ locale?: string }>("routes/app");
  const login = useRouteLoaderData<{ locale?: string }>("routes/auth.login");
  return admin?.locale ?? login?.locale ?? "en";
}

export default function App() {
  return (
    <html lang={usePageLocale()}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <link rel="preconnect" href="https://cdn.shopify.com/" />
        <link rel="icon" href="data:," />
        <Meta />
        <Links />
      </head>
      <body>
        <Outlet />
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

/**
 * Whatever no route's own boundary caught (an unknown path, mostly): a plain page. Without it Remix's default
 * boundary prints the error raw to stderr, outside the app's one logger (app/entry.server.tsx logs it instead).
 */
export function ErrorBoundary() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  // No route's loader ran: Shopify's `locale` on the address, if any, names the language.
  const { t, locale } = translator(resolveLocale(new URLSearchParams(useLocation().search).get("locale")));
  const title = t(notFound ? "root.notFound.title" : "root.error.title");
  return (
    <html lang={locale}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>{title}</title>
      </head>
      <body style={{ fontFamily: "system-ui, sans-serif", maxWidth: 560, margin: "64px auto", padding: 16 }}>
        <main>
          <h1>{title}</h1>
          <p>{t(notFound ? "root.notFound.body" : "root.error.body")}</p>
        </main>
      </body>
    </html>
  );
}
