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

export const meta: MetaFunction = () => pageTitle("Log in");

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

// The login form is a page of its own, outside the admin (a request naming a valid shop is sent on to it).
export const headers = neverFramedHeaders;

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const errors = loginErrorMessage(await login(request));
  return { errors, apiKey: env().SHOPIFY_API_KEY };
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
  // Shopify's provider, not embedded here: Polaris with its English texts, as the app's own pages get them.
  return (
    <AppProvider isEmbeddedApp={false} apiKey={loaderData.apiKey}>
      <Page>
        <Card>
          <Form method="post">
            <FormLayout>
              <Text variant="headingMd" as="h2">
                Log in
              </Text>
              <TextField
                type="text"
                name="shop"
                label="Shop domain"
                helpText="example.myshopify.com"
                value={shop}
                onChange={setShop}
                autoComplete="on"
                error={errors.shop}
              />
              <Button submit>Log in</Button>
            </FormLayout>
          </Form>
        </Card>
      </Page>
    </AppProvider>
  );
}
