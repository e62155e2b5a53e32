import type { HeadersFunction, LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData, useRouteError } from "@remix-run/react";
import type { ComponentProps } from "react";
import { boundary } from "@shopify/shopify-app-remix/server";
import { AppProvider } from "@shopify/shopify-app-remix/react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { authenticate } from "../shopify.server";
import { env } from "../env.server";
import { requestLocale } from "../i18n/request.server";
import { polarisTranslations } from "../i18n/polaris.server";
import { AdminShell } from "../components/AdminShell";
import { I18nProvider } from "../components/i18n";

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  // Shopify's locale for this admin (docs/decisions/0012): the app's words and Polaris' own in that language.
  const locale = requestLocale(request, session);
  return { apiKey: env().SHOPIFY_API_KEY, locale, polaris: await polarisTranslations(locale) };
};

export default function App() {
  const { apiKey, locale, polaris } = useLoaderData<typeof loader>();
  return (
    <AppProvider isEmbeddedApp apiKey={apiKey} i18n={polaris as unknown as ComponentProps<typeof AppProvider>["i18n"]}>
      <I18nProvider locale={locale}>
        <AdminShell>
          <Outlet />
        </AdminShell>
      </I18nProvider>
    </AppProvider>
  );
}

// Shopify needs Remix to catch some thrown responses, so that their headers are included in the response.
export function ErrorBoundary() {
  return boundary.error(useRouteError());
}

export const headers: HeadersFunction = (headersArgs) => boundary.headers(headersArgs);
