// The error state of every admin page: a Polaris page with a critical banner in plain words. Responses thrown by
// Shopify's authentication (bounce pages, redirects with headers) go to Shopify's own boundary, as they must.
import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { Banner, BlockStack, Button, Page, Text } from "@shopify/polaris";
import { boundary } from "@shopify/shopify-app-remix/server";

export function PageErrorBoundary({ title }: { title: string }) {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status !== 404 && error.status !== 400) return boundary.error(error);
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const message = notFound
    ? "It may have been removed, or it belongs to another store."
    : isRouteErrorResponse(error)
      ? String(typeof error.data === "string" ? error.data : "The request was not understood.").slice(0, 200)
      : "Something went wrong while loading this page. Nothing was changed; try again in a moment.";
  return (
    <Page title={title}>
      <Banner tone="critical" title={notFound ? "Not found" : "This page could not be loaded"}>
        <BlockStack gap="200">
          <Text as="p">{message}</Text>
          <div>
            <Button url="/app">Back to Home</Button>
          </div>
        </BlockStack>
      </Banner>
    </Page>
  );
}
