// The error state of every admin page: a Polaris page with a critical banner in plain words. Responses thrown by
// Shopify's authentication (bounce pages, redirects with headers) go to Shopify's own boundary, as they must.
import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { Banner, BlockStack, Button, Page, Text } from "@shopify/polaris";
import { boundary } from "@shopify/shopify-app-remix/server";
import type { MessageKey } from "../i18n/catalog";
import { useI18n } from "./i18n";

export function PageErrorBoundary({ title }: { title: MessageKey }) {
  const error = useRouteError();
  const { t } = useI18n();
  if (isRouteErrorResponse(error) && error.status !== 404 && error.status !== 400) return boundary.error(error);
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const message = notFound
    ? t("error.notFound.body")
    : isRouteErrorResponse(error)
      ? t("error.badRequest")
      : t("error.failed.body");
  return (
    <Page title={t(title)}>
      <Banner tone="critical" title={t(notFound ? "error.notFound.title" : "error.failed.title")}>
        <BlockStack gap="200">
          <Text as="p">{message}</Text>
          <div>
            <Button url="/app">{t("error.backHome")}</Button>
          </div>
        </BlockStack>
      </Banner>
    </Page>
  );
}
