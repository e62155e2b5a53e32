import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { adminCustomerLink } from "../lib/admin-links";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Page,
  Pagination,
  Text,
  TextField,
} from "@shopify/polaris";
import { useState } from "react";
import prisma from "../db.server";
import { readForm } from "../lib/form.server";
import { authenticate } from "../shopify.server";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { disconnectGrant, listGrants } from "../connections/grant-lifecycle.server";
import { loadServiceSettingsOrNull } from "../connections/settings-loader.server";
import { pageTitle } from "../lib/page-title";
import { customerWords } from "../admin/reason-words";
import { useI18n } from "../components/i18n";
import { requestLocale } from "../i18n/request.server";
import { translator } from "../i18n/translate";
import { titleOf } from "../i18n/locale";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "customers.title"));

// Thin route: every query is scoped by the session's shop inside app/connections/grant-lifecycle.server.ts.

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const url = new URL(request.url);
  const page = Number(url.searchParams.get("page") ?? "1");
  const grants = await listGrants(prisma, session.shop, {
    query: url.searchParams.get("q") ?? "",
    page: Number.isFinite(page) ? page : 1,
  });
  return { grants };
};

type ActionData = { ok: boolean; message: string };

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await readForm(request);
  const grantId = form.get("grantId");
  const { t } = translator(requestLocale(request, session));
  if (form.get("intent") !== "disconnect" || typeof grantId !== "string" || !grantId) {
    return data<ActionData>({ ok: false, message: t("customers.badRequest") }, { status: 400 });
  }
  // Undecryptable settings (null): still deleted locally; the message says revoking failed.
  const settings = await loadServiceSettingsOrNull(prisma, session.shop);
  const result = await disconnectGrant(prisma, session.shop, grantId, { settings });
  if (!result.ok) return data<ActionData>({ ok: false, message: t("customers.notFound") }, { status: result.status });
  const message = result.revoked
    ? t("customers.disconnected.revoked", { who: result.who })
    : t("customers.disconnected.notRevoked", {
        who: result.who,
        problem:
          result.problem === "service"
            ? (result.serviceMessage ?? "").replace(/\.$/, "") // the service's own words, as it gave them
            : t(`customers.problem.${result.problem ?? "no_settings"}`),
      });
  return data<ActionData>({ ok: true, message });
};

export default function Customers() {
  const { grants } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [searchParams] = useSearchParams();
  const [query, setQuery] = useState(grants.query);
  const [confirming, setConfirming] = useState<string | null>(null);
  const busyGrant = navigation.state !== "idle" ? navigation.formData?.get("grantId") : undefined;
  const i18n = useI18n();
  const { t, dateTime, number } = i18n;
  const formatDate = (iso: string | null) => (iso ? dateTime(iso) : t("customers.never"));

  // The admin loads the page with a Shopify session token in the URL (id_token): links and forms must not copy it.
  const pageLink = (page: number) => {
    const next = new URLSearchParams(searchParams);
    next.delete("id_token");
    next.set("page", String(page));
    if (grants.query) next.set("q", grants.query);
    return `?${next.toString()}`;
  };

  const rows = grants.items.map((g, index) => {
    const name = customerWords(t, g.displayName, g.customerId);
    return (
      <IndexTable.Row id={g.id} key={g.id} position={index}>
        <IndexTable.Cell>
          <BlockStack gap="050">
            <Text as="span" fontWeight="semibold">
              {name}
            </Text>
            <Text as="span" tone="subdued" variant="bodySm">
              <a href={adminCustomerLink(g.customerId)}>{t("customers.id", { id: g.customerId })}</a>
            </Text>
          </BlockStack>
        </IndexTable.Cell>
        <IndexTable.Cell>{g.workspaceId}</IndexTable.Cell>
        <IndexTable.Cell>
          <span translate="no">{g.scopes.join(", ")}</span>
        </IndexTable.Cell>
        <IndexTable.Cell>{formatDate(g.connectedAt)}</IndexTable.Cell>
        <IndexTable.Cell>{formatDate(g.lastUsedAt)}</IndexTable.Cell>
        <IndexTable.Cell>
          {g.status === "active" ? (
            <Badge tone="success">{t("customers.status.connected")}</Badge>
          ) : (
            <BlockStack gap="050">
              <span>
                <Badge tone="critical">{t("customers.status.needsReconnect")}</Badge>
              </span>
              {g.statusReason && (
                <Text as="span" tone="subdued" variant="bodySm">
                  {g.statusReasonCode ? (
                    t(`customers.status.${g.statusReasonCode}`)
                  ) : i18n.storedWordsFit ? (
                    g.statusReason
                  ) : (
                    <>
                      {t("customers.status.recorded")} <q translate="no">{g.statusReason}</q>
                    </>
                  )}
                </Text>
              )}
            </BlockStack>
          )}
        </IndexTable.Cell>
        <IndexTable.Cell>
          {/* Two steps: disconnecting revokes the customer's authorization at the service, which cannot be undone. */}
          {confirming === g.id ? (
            <Form method="post" action="/app/customers" onSubmit={() => setConfirming(null)}>
              <input type="hidden" name="intent" value="disconnect" />
              <input type="hidden" name="grantId" value={g.id} />
              <InlineStack gap="200" wrap={false}>
                <Button
                  submit
                  tone="critical"
                  variant="primary"
                  size="slim"
                  accessibilityLabel={t("customers.confirmLabel", { name })}
                >
                  {t("customers.confirm")}
                </Button>
                <Button size="slim" onClick={() => setConfirming(null)}>
                  {t("customers.cancel")}
                </Button>
              </InlineStack>
            </Form>
          ) : (
            <Button
              tone="critical"
              variant="plain"
              loading={busyGrant === g.id}
              onClick={() => setConfirming(g.id)}
              accessibilityLabel={t("customers.disconnectLabel", { name })}
            >
              {t("customers.disconnect")}
            </Button>
          )}
        </IndexTable.Cell>
      </IndexTable.Row>
    );
  });

  return (
    <Page title={t("customers.title")} subtitle={t("customers.subtitle")}>
      <BlockStack gap="400">
        {actionData && (
          <Banner
            tone={actionData.ok ? "success" : "critical"}
            title={t(actionData.ok ? "customers.disconnected" : "customers.notDisconnected")}
          >
            <p>{actionData.message}</p>
          </Banner>
        )}
        <Card>
          <BlockStack gap="300">
            <Form method="get" action="/app/customers">
              <InlineStack gap="200" blockAlign="end">
                <div style={{ flexGrow: 1 }}>
                  <TextField
                    label={t("customers.search")}
                    labelHidden
                    name="q"
                    value={query}
                    onChange={setQuery}
                    placeholder={t("customers.searchPlaceholder")}
                    autoComplete="off"
                  />
                </div>
                <Button submit>{t("customers.search")}</Button>
              </InlineStack>
            </Form>
            {grants.total === 0 ? (
              <BlockStack gap="100" inlineAlign="center">
                <Text as="h2" variant="headingMd">
                  {t(grants.query ? "customers.empty.noMatch" : "customers.empty.title")}
                </Text>
                <Text as="p" tone="subdued">
                  {t(grants.query ? "customers.empty.noMatchHelp" : "customers.empty.help")}
                </Text>
              </BlockStack>
            ) : (
              <IndexTable
                resourceName={{ singular: t("customers.resource.one"), plural: t("customers.resource.other") }}
                itemCount={grants.items.length}
                selectable={false}
                headings={[
                  { title: t("customers.col.customer") },
                  { title: t("customers.col.workspace") },
                  { title: t("customers.col.scopes") },
                  { title: t("customers.col.connected") },
                  { title: t("customers.col.lastUsed") },
                  { title: t("customers.col.status") },
                  { title: "" },
                ]}
              >
                {rows}
              </IndexTable>
            )}
            <InlineStack align="space-between" blockAlign="center">
              <Text as="span" tone="subdued">
                {t("customers.count", { count: grants.total, total: number(grants.total) })} ·{" "}
                {t("customers.page", { page: grants.page, pages: grants.pageCount })}
              </Text>
              <Pagination
                hasPrevious={grants.page > 1}
                // A link only where there is a page to go to: Polaris renders a disabled link as an <a> without
                // href but with an aria-label, which ARIA does not allow.
                previousURL={grants.page > 1 ? pageLink(grants.page - 1) : undefined}
                hasNext={grants.page < grants.pageCount}
                nextURL={grants.page < grants.pageCount ? pageLink(grants.page + 1) : undefined}
              />
            </InlineStack>
          </BlockStack>
        </Card>
      </BlockStack>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="customers.title" />;
}
