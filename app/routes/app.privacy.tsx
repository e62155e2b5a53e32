import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, EmptyState, InlineStack, Page, Text } from "@shopify/polaris";
import prisma from "../db.server";
import { readForm } from "../lib/form.server";
import { authenticate } from "../shopify.server";
import { listOpenDataRequests, markDataRequestHandled } from "../privacy/export.server";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = () => pageTitle("Privacy");

// Thin route: customers/data_request exports (app/privacy/export.server.ts), scoped by the session's shop. The
// export is downloaded from the loaded data in the browser (an embedded page cannot follow a plain download link
// with its session token), and stays listed until the merchant marks it handled.

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return { requests: await listOpenDataRequests(prisma, session.shop) };
};

type ActionData = { ok: boolean; message: string };

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await readForm(request);
  const id = form.get("requestId");
  if (form.get("intent") !== "handled" || typeof id !== "string" || !id) {
    return data<ActionData>({ ok: false, message: 'Send intent "handled" with a requestId.' }, { status: 400 });
  }
  const done = await markDataRequestHandled(prisma, session.shop, id);
  return done
    ? data<ActionData>({ ok: true, message: "Marked as handled." })
    : data<ActionData>({ ok: false, message: "No such open data request." }, { status: 404 });
};

function download(name: string, data: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

export default function Privacy() {
  const { requests } = useLoaderData<typeof loader>();
  const actionData = useActionData<ActionData>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" ? navigation.formData?.get("requestId") : undefined;

  return (
    <Page title="Privacy" subtitle="Customer data requests from Shopify">
      <BlockStack gap="400">
        {actionData && <Banner tone={actionData.ok ? "success" : "critical"} title={actionData.message} />}
        {requests.length === 0 ? (
          <Card>
            <EmptyState heading="No open data requests" image="">
              <p>When a customer asks you for their data, Shopify tells the app and the export appears here.</p>
            </EmptyState>
          </Card>
        ) : (
          requests.map((r) => (
            <Card key={r.id}>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Customer {r.customerId}
                </Text>
                <Text as="p" tone="subdued">
                  Requested {r.requestedAt.slice(0, 16).replace("T", " ")} UTC
                  {r.ordersRequested.length > 0 ? ` · orders ${r.ordersRequested.join(", ")}` : ""}
                </Text>
                <InlineStack gap="200">
                  <Button
                    onClick={() => download(`customer-${r.customerId}-data.json`, r.export)}
                    accessibilityLabel={`Download export of customer ${r.customerId}`}
                  >
                    Download export
                  </Button>
                  <Form method="post" action="/app/privacy">
                    <input type="hidden" name="intent" value="handled" />
                    <input type="hidden" name="requestId" value={r.id} />
                    <Button
                      submit
                      loading={busy === r.id}
                      accessibilityLabel={`Mark handled: the request of customer ${r.customerId}`}
                    >
                      Mark handled
                    </Button>
                  </Form>
                </InlineStack>
              </BlockStack>
            </Card>
          ))
        )}
      </BlockStack>
    </Page>
  );
}
