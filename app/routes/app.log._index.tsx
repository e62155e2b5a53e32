// Sync log: every order import, shipment import and cart handoff, filtered by what is in the URL (shareable), a
// keyset page at a time; bulk retry and resolve; CSV export of the same view. Logic: app/admin/log*.server.ts.
// About 300 lines, all of it the page's Polaris markup (filters, table, bulk actions): the logic is in app/admin/.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useNavigate,
  useNavigation,
  useSearchParams,
  useSubmit,
} from "@remix-run/react";
import {
  Badge,
  BlockStack,
  Box,
  Button,
  Card,
  IndexTable,
  InlineGrid,
  InlineStack,
  Page,
  Pagination,
  Select,
  Text,
  TextField,
  useBreakpoints,
  useIndexResourceState,
} from "@shopify/polaris";
import { useState } from "react";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { readForm } from "../lib/form.server";
import { parseLogFilter } from "../admin/log-query.server";
import { LOG_KINDS, LOG_STATES } from "../admin/log-terms";
import { loadLogView } from "../admin/log.server";
import {
  resolveMatching,
  resolveRecords,
  retryMatching,
  retrySelected,
  type ActionResult,
} from "../admin/log-actions.server";
import { setSyncPaused } from "../sync/status.server";
import { ActionToast } from "../components/ActionToast";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { useLiveRevalidation } from "../components/useLiveRevalidation";
import { KIND_LABEL, STATE_LABEL, STATE_TONE, stateName } from "../components/sync-labels";
import { customerWords, reasonParts } from "../admin/reason-words";
import { ReasonText } from "../components/ServiceWords";
import { useI18n } from "../components/i18n";
import { requestLocale } from "../i18n/request.server";
import { translator } from "../i18n/translate";
import { titleOf } from "../i18n/locale";
import type { MessageKey } from "../i18n/catalog";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "log.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return loadLogView(prisma, session.shop, new URL(request.url).searchParams);
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await readForm(request);
  const intent = form.get("intent");
  const ids = form.getAll("id").filter((v): v is string => typeof v === "string");
  const filter = parseLogFilter(new URLSearchParams(String(form.get("filter") ?? "").slice(0, 2000)));
  const all = form.get("all") === "1";
  const words = translator(requestLocale(request, session));
  let result: ActionResult;
  if (intent === "pause" || intent === "resume") {
    const { ok } = await setSyncPaused(prisma, session.shop, intent === "pause");
    result = { ok, message: words.t(intent === "pause" ? "log.pausedToast" : "log.resumedToast") };
  } else if (intent === "retry")
    result = all
      ? await retryMatching(prisma, session.shop, filter, undefined, words)
      : await retrySelected(prisma, session.shop, ids, undefined, words);
  else if (intent === "resolve")
    result = all
      ? await resolveMatching(prisma, session.shop, filter, undefined, words)
      : await resolveRecords(prisma, session.shop, ids, undefined, words);
  else result = { ok: false, message: words.t("action.unknown") };
  return result;
};

const options = (
  t: (key: MessageKey) => string,
  values: readonly string[],
  labels: Record<string, MessageKey>,
  any: string,
) => [{ label: any, value: "" }, ...values.map((v) => ({ label: labels[v] ? t(labels[v]) : v, value: v }))];

function Filters({ filter }: { filter: ReturnType<typeof useLoaderData<typeof loader>>["filter"] }) {
  const { t } = useI18n();
  const [values, setValues] = useState({
    q: filter.q ?? "",
    kind: filter.kind ?? "",
    state: filter.state ?? "",
    from: filter.from ?? "",
    to: filter.to ?? "",
    customer: filter.customer ?? "",
    sort: filter.sort,
  });
  const set = (key: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [key]: value }));
  // On a phone only the search shows; the other filters open on demand (a view with them set says how many).
  const small = useBreakpoints().smDown;
  const [more, setMore] = useState(false);
  const active = [
    filter.kind,
    filter.state,
    filter.from,
    filter.to,
    filter.customer,
    filter.sort === "asc" ? "asc" : undefined,
  ].filter(Boolean).length;
  const showAll = !small || more;
  return (
    <Form method="get" aria-label={t("log.filters.label")}>
      <BlockStack gap="300">
        <InlineGrid columns={{ xs: 1, sm: 2, md: 4 }} gap="200">
          <TextField
            label={t("log.filters.order")}
            name="q"
            value={values.q}
            onChange={set("q")}
            autoComplete="off"
            placeholder="#1001"
            maxLength={64}
          />
          {showAll ? (
            <>
              <Select
                label={t("log.filters.kind")}
                name="kind"
                options={options(t, LOG_KINDS, KIND_LABEL, t("log.filters.allKinds"))}
                value={values.kind}
                onChange={set("kind")}
              />
              <Select
                label={t("log.filters.state")}
                name="state"
                options={options(t, LOG_STATES, STATE_LABEL, t("log.filters.allStates"))}
                value={values.state}
                onChange={set("state")}
              />
              <TextField
                label={t("log.filters.customer")}
                name="customer"
                value={values.customer}
                onChange={set("customer")}
                autoComplete="off"
                inputMode="numeric"
                maxLength={40}
              />
              <TextField
                label={t("log.filters.from")}
                name="from"
                type="date"
                value={values.from}
                onChange={set("from")}
                autoComplete="off"
              />
              <TextField
                label={t("log.filters.to")}
                name="to"
                type="date"
                value={values.to}
                onChange={set("to")}
                autoComplete="off"
              />
              <Select
                label={t("log.filters.sort")}
                name="sort"
                options={[
                  { label: t("log.filters.newest"), value: "desc" },
                  { label: t("log.filters.oldest"), value: "asc" },
                ]}
                value={values.sort}
                onChange={set("sort")}
              />
            </>
          ) : (
            // Hidden but submitted: searching on a phone keeps the view's other filters.
            Object.entries(values)
              .filter(([key, value]) => key !== "q" && value)
              .map(([key, value]) => <input key={key} type="hidden" name={key} value={value} />)
          )}
        </InlineGrid>
        <InlineStack gap="200">
          <Button submit variant="primary">
            {t("log.filters.apply")}
          </Button>
          <Button url="/app/log">{t("log.filters.clear")}</Button>
          {small ? (
            <Button variant="plain" onClick={() => setMore((m) => !m)} ariaExpanded={more}>
              {more
                ? t("log.filters.fewer")
                : active
                  ? t("log.filters.moreSet", { count: active })
                  : t("log.filters.more")}
            </Button>
          ) : null}
        </InlineStack>
      </BlockStack>
    </Form>
  );
}

type Row = ReturnType<typeof useLoaderData<typeof loader>>["page"]["rows"][number];

function RowTitle({ row }: { row: Row }) {
  const { t } = useI18n();
  return (
    <BlockStack gap="050">
      <Link to={`/app/log/${row.id}`} onClick={(e) => e.stopPropagation()} data-primary-link>
        <Text as="span" fontWeight="semibold">
          {row.kind === "handoff" ? t("kind.handoff") : (row.orderName ?? t("log.row.order", { id: row.orderId }))}
        </Text>
      </Link>
      <Text as="span" tone="subdued" variant="bodySm">
        {row.kind === "shipment"
          ? t("log.row.shipment", { id: row.externalId })
          : row.kind === "order"
            ? t("log.row.order", { id: row.orderId })
            : row.externalId}
      </Text>
    </BlockStack>
  );
}

function RowState({ row }: { row: Row }) {
  const { t } = useI18n();
  return (
    <InlineStack gap="100">
      <Badge tone={STATE_TONE[row.state]}>{stateName(t, row.state)}</Badge>
      {row.resolved ? <Badge>{t("state.resolved")}</Badge> : null}
    </InlineStack>
  );
}

function RowReason({ row }: { row: Row }) {
  const i18n = useI18n();
  return (
    <Text as="span" tone={row.state === "failed" && !row.resolved ? "critical" : undefined}>
      <ReasonText parts={reasonParts(i18n, row)} />
    </Text>
  );
}

export default function SyncLog() {
  const { filter, query, page, paused, busy, filtered } = useLoaderData<typeof loader>();
  const { t, dateTime, number, locale } = useI18n();
  const result = useActionData<typeof action>();
  const submit = useSubmit();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const [searchParams] = useSearchParams();
  const working = navigation.state !== "idle";
  useLiveRevalidation(busy);
  const { selectedResources, allResourcesSelected, handleSelectionChange, clearSelection } = useIndexResourceState(
    page.rows,
  );
  // Below 490 px a row is a small stacked card instead of a wide table row (Polaris' condensed IndexTable).
  const condensed = useBreakpoints().smDown;

  const post = (data: Record<string, string | string[]>) => {
    const form = new FormData();
    for (const [key, value] of Object.entries(data)) for (const v of [value].flat()) form.append(key, v);
    form.set("filter", query);
    submit(form, { method: "post" });
    clearSelection();
  };
  const bulk = (intent: "retry" | "resolve") => () =>
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
          <Filters key={searchParams.toString()} filter={filter} />
        </Card>
        <Card padding="0">
          {page.rows.length === 0 ? (
            <Box padding="600">
              <BlockStack gap="200" inlineAlign="center">
                <Text as="h2" variant="headingMd">
                  {filtered
                    ? filter.state
                      ? t("log.empty.state", { state: stateName(t, filter.state).toLocaleLowerCase(locale) })
                      : t("log.empty.filtered")
                    : t("log.empty.title")}
                </Text>
                <Text as="p" tone="subdued" alignment="center">
                  {t(filtered ? "log.empty.filteredHelp" : "log.empty.help")}
                </Text>
              </BlockStack>
            </Box>
          ) : (
            <IndexTable
              resourceName={{ singular: t("log.resource.one"), plural: t("log.resource.other") }}
              itemCount={page.rows.length}
              condensed={condensed}
              selectedItemsCount={allResourcesSelected ? "All" : selectedResources.length}
              onSelectionChange={handleSelectionChange}
              hasMoreItems={!!page.next || !!page.previous}
              loading={working && navigation.formMethod?.toLowerCase() === "get"}
              promotedBulkActions={[
                {
                  content: t(allResourcesSelected ? "log.bulk.retryAll" : "log.bulk.retry"),
                  onAction: bulk("retry"),
                },
                {
                  content: t(allResourcesSelected ? "log.bulk.resolveAll" : "log.bulk.resolve"),
                  onAction: bulk("resolve"),
                },
              ]}
              headings={[
                { title: t("log.col.order") },
                { title: t("log.col.customer") },
                { title: t("log.col.date") },
                { title: t("log.col.state") },
                { title: t("log.col.details") },
                { title: t("log.col.attempts"), alignment: "end" },
              ]}
            >
              {page.rows.map((row, index) => (
                <IndexTable.Row id={row.id} key={row.id} position={index} selected={selectedResources.includes(row.id)}>
                  {condensed ? (
                    <div style={{ padding: "12px 16px" }}>
                      <BlockStack gap="100">
                        <InlineStack align="space-between" gap="200" wrap={false}>
                          <RowTitle row={row} />
                          <RowState row={row} />
                        </InlineStack>
                        <Text as="span" tone="subdued" variant="bodySm">
                          {[
                            customerWords(t, row.customer, row.customerId),
                            dateTime(row.createdAt),
                            t("log.row.attempts", { count: row.attempts }),
                          ]
                            .filter(Boolean)
                            .join(" · ")}
                        </Text>
                        {row.reason ? <RowReason row={row} /> : null}
                      </BlockStack>
                    </div>
                  ) : (
                    <>
                      <IndexTable.Cell>
                        <RowTitle row={row} />
                      </IndexTable.Cell>
                      <IndexTable.Cell>{customerWords(t, row.customer, row.customerId) || "—"}</IndexTable.Cell>
                      <IndexTable.Cell>{dateTime(row.createdAt)}</IndexTable.Cell>
                      <IndexTable.Cell>
                        <RowState row={row} />
                      </IndexTable.Cell>
                      <IndexTable.Cell>
                        <div style={{ whiteSpace: "normal", minWidth: "12rem", maxWidth: "28rem" }}>
                          <RowReason row={row} />
                        </div>
                      </IndexTable.Cell>
                      <IndexTable.Cell>
                        <Text as="span" alignment="end" numeric>
                          {number(row.attempts)}
                        </Text>
                      </IndexTable.Cell>
                    </>
                  )}
                </IndexTable.Row>
              ))}
            </IndexTable>
          )}
          <div style={{ padding: "12px", display: "flex", justifyContent: "center" }}>
            <Pagination
              hasPrevious={!!page.previous}
              hasNext={!!page.next}
              onPrevious={() => go("before", page.previous)}
              onNext={() => go("after", page.next)}
              label={t("log.shown", { count: page.rows.length })}
            />
          </div>
        </Card>
      </BlockStack>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="log.title" />;
}
