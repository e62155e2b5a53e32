import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Button, Card, FormLayout, Page, Text, TextField } from "@shopify/polaris";
import { AppProvider } from "@shopify/shopify-app-remix/react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { useState } from "react";
import { login } from "../../shopify.server";
import { loginErrorMessage } from "./error.server";
import { env } from "../../env.server";
import { neverFramedHeaders } from "../../shopify/frame-ancestors";
import { pageTitle } from "../../lib/page-title";
import { requestLocale } from "../../i18n/request.server";
import { polarisTranslations } from "../../i18n/polaris.server";
import { titleOf } from "../../i18n/locale";
import { translator } from "../../i18n/translate";
import type { ComponentProps } from "react";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "login.title"));

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

// The login form is a page of its own, outside the admin (a request naming a valid shop is sent on to it).
export const headers = neverFramedHeaders;

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const errors = loginErrorMessage(await login(request));
  // Shopify's `locale` when a link carries it; English otherwise (no session yet to ask).
  const locale = requestLocale(request);
  return { errors, apiKey: env().SHOPIFY_API_KEY, locale, polaris: await polarisTranslations(locale) };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const errors = loginErrorMessage(await login(request));
  return { errors };
};

export default function Auth() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [shop, setShop] = useState("");
  const { errors } = actionData || loaderData;
  const { t } = translator(loaderData.locale);
  // Shopify's provider, not embedded here: Polaris with its texts in the page's language.
  const i18n = loaderData.polaris as unknown as ComponentProps<typeof AppProvider>["i18n"];
  return (
    <AppProvider isEmbeddedApp={false} apiKey={loaderData.apiKey} i18n={i18n}>
      <Page>
        <Card>
          <Form method="post">
            <FormLayout>
              <Text variant="headingMd" as="h2">
                {t("login.title")}
              </Text>
              <TextField
                type="text"
                name="shop"
                label={t("login.shop")}
                helpText="example.myshopify.com"
                value={shop}
                onChange={setShop}
                autoComplete="on"
                error={errors.shop ? t(errors.shop) : undefined}
              />
              <Button submit>{t("login.submit")}</Button>
            </FormLayout>
          </Form>
        </Card>
      </Page>
    </AppProvider>
  );
}
