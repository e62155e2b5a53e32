import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, EmptyState, InlineStack, Page, Text } from "@shopify/polaris";
import prisma from "../db.server";
import { readForm } from "../lib/form.server";
import { authenticate } from "../shopify.server";
import { listOpenDataRequests, markDataRequestHandled } from "../privacy/export.server";
import { pageTitle } from "../lib/page-title";
import { useI18n } from "../components/i18n";
import { requestLocale } from "../i18n/request.server";
import { translator } from "../i18n/translate";
import { titleOf } from "../i18n/locale";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "privacy.title"));

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
  const { t } = translator(requestLocale(request, session));
  if (form.get("intent") !== "handled" || typeof id !== "string" || !id) {
    return data<ActionData>({ ok: false, message: t("privacy.badRequest") }, { status: 400 });
  }
  const done = await markDataRequestHandled(prisma, session.shop, id);
  return done
    ? data<ActionData>({ ok: true, message: t("privacy.handled") })
    : data<ActionData>({ ok: false, message: t("privacy.notFound") }, { status: 404 });
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
  const { t, dateTime } = useI18n();

  return (
    <Page title={t("privacy.title")} subtitle={t("privacy.subtitle")}>
      <BlockStack gap="400">
        {actionData && <Banner tone={actionData.ok ? "success" : "critical"} title={actionData.message} />}
        {requests.length === 0 ? (
          <Card>
            <EmptyState heading={t("privacy.empty.title")} image="">
              <p>{t("privacy.empty.help")}</p>
            </EmptyState>
          </Card>
        ) : (
          requests.map((r) => (
            <Card key={r.id}>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {t("log.row.customer", { id: r.customerId })}
                </Text>
                <Text as="p" tone="subdued">
                  {t("privacy.requested", { at: dateTime(r.requestedAt) })}
                  {r.ordersRequested.length > 0
                    ? ` · ${t("privacy.orders", { count: r.ordersRequested.length, orders: r.ordersRequested.join(", ") })}`
                    : ""}
                </Text>
                <InlineStack gap="200">
                  <Button
                    onClick={() => download(`customer-${r.customerId}-data.json`, r.export)}
                    accessibilityLabel={t("privacy.downloadLabel", { id: r.customerId })}
                  >
                    {t("privacy.download")}
                  </Button>
                  <Form method="post" action="/app/privacy">
                    <input type="hidden" name="intent" value="handled" />
                    <input type="hidden" name="requestId" value={r.id} />
                    <Button
                      submit
                      loading={busy === r.id}
                      accessibilityLabel={t("privacy.markLabel", { id: r.customerId })}
                    >
                      {t("privacy.mark")}
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
