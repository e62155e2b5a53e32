// Sync log: every order import, shipment import and cart handoff, filtered by what is in the URL (shareable), a
// keyset page at a time; bulk retry and resolve; CSV export of the same view. Logic: app/admin/log*.server.ts; the
// filter bar and the table: app/components/log/.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigate, useNavigation, useSearchParams, useSubmit } from "@remix-run/react";
import { BlockStack, Card, Page, Text, useIndexResourceState } from "@shopify/polaris";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { readForm } from "../lib/form.server";
import { loadLogView } from "../admin/log.server";
import { logPageAction } from "../admin/log-actions.server";
import { ActionToast } from "../components/ActionToast";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { useLiveRevalidation } from "../components/useLiveRevalidation";
import { LogFilters } from "../components/log/LogFilters";
import { LogTable } from "../components/log/LogTable";
import { useI18n } from "../components/i18n";
import { requestLocale } from "../i18n/request.server";
import { translator } from "../i18n/translate";
import { titleOf } from "../i18n/locale";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "log.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return loadLogView(prisma, session.shop, new URL(request.url).searchParams);
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await readForm(request);
  return logPageAction(prisma, session.shop, form, translator(requestLocale(request, session)));
};

export default function SyncLog() {
  const { filter, query, page, paused, busy, filtered } = useLoaderData<typeof loader>();
  const { t } = useI18n();
  const result = useActionData<typeof action>();
  const submit = useSubmit();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const [searchParams] = useSearchParams();
  const working = navigation.state !== "idle";
  useLiveRevalidation(busy);
  const selection = useIndexResourceState(page.rows);
  const { selectedResources, allResourcesSelected, clearSelection } = selection;

  const post = (data: Record<string, string | string[]>) => {
    const form = new FormData();
    for (const [key, value] of Object.entries(data)) for (const v of [value].flat()) form.append(key, v);
    form.set("filter", query);
    submit(form, { method: "post" });
    clearSelection();
  };
  const bulk = (intent: "retry" | "resolve") =>
    post(allResourcesSelected ? { intent, all: "1" } : { intent, id: selectedResources });
  const go = (key: "after" | "before", cursor: string | null) => {
    const params = new URLSearchParams(query);
    if (cursor) params.set(key, cursor);
    navigate(`?${params.toString()}`);
  };
  const exportCsv = async () => {
    // fetch (App Bridge adds the session token inside the Shopify admin), then save: a link could not carry the token.
    const response = await fetch(`/app/log/export?${query}`);
    if (!response.ok) return;
    const url = URL.createObjectURL(await response.blob());
    const a = document.createElement("a");
    a.href = url;
    a.download = `sync-log-${new Date().toISOString().slice(0, 10)}.csv`;
    a.click();
    URL.revokeObjectURL(url);
  };

  return (
    <Page
      title={t("log.title")}
      subtitle={t("log.subtitle")}
      primaryAction={
        paused
          ? { content: t("log.resume"), onAction: () => post({ intent: "resume" }), loading: working }
          : { content: t("log.pause"), destructive: true, onAction: () => post({ intent: "pause" }), loading: working }
      }
      secondaryActions={[
        { content: t("log.export"), onAction: exportCsv, accessibilityLabel: t("log.exportLabel") },
        { content: t("log.retryAll"), onAction: () => post({ intent: "retry", all: "1" }) },
      ]}
    >
      <BlockStack gap="400">
        <ActionToast result={result} />
        {paused ? (
          <Card>
            <Text as="p" tone="caution">
              {t("log.paused")}
            </Text>
          </Card>
        ) : null}
        <Card>
          <LogFilters key={searchParams.toString()} filter={filter} />
        </Card>
        <Card padding="0">
          <LogTable
            page={page}
            filter={filter}
            filtered={filtered}
            selection={selection}
            loading={working && navigation.formMethod?.toLowerCase() === "get"}
            onBulk={bulk}
            onPage={go}
          />
        </Card>
      </BlockStack>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="log.title" />;
}
