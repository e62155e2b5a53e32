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
import { KIND_LABEL, STATE_LABEL, STATE_TONE, utc } from "../components/sync-labels";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = () => pageTitle("Sync log");

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
  let result: ActionResult;
  if (intent === "pause" || intent === "resume") result = await setSyncPaused(prisma, session.shop, intent === "pause");
  else if (intent === "retry")
    result = all ? await retryMatching(prisma, session.shop, filter) : await retrySelected(prisma, session.shop, ids);
  else if (intent === "resolve")
    result = all
      ? await resolveMatching(prisma, session.shop, filter)
      : await resolveRecords(prisma, session.shop, ids);
  else result = { ok: false, message: "Unknown action." };
  return result;
};

const options = (values: readonly string[], labels: Record<string, string>, any: string) => [
  { label: any, value: "" },
  ...values.map((v) => ({ label: labels[v] ?? v, value: v })),
];

function Filters({ filter }: { filter: ReturnType<typeof useLoaderData<typeof loader>>["filter"] }) {
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
    <Form method="get" aria-label="Filter the sync log">
      <BlockStack gap="300">
        <InlineGrid columns={{ xs: 1, sm: 2, md: 4 }} gap="200">
          <TextField
            label="Order name or number"
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
                label="Kind"
                name="kind"
                options={options(LOG_KINDS, KIND_LABEL, "All kinds")}
                value={values.kind}
                onChange={set("kind")}
              />
              <Select
                label="State"
                name="state"
                options={options(LOG_STATES, STATE_LABEL, "All states")}
                value={values.state}
                onChange={set("state")}
              />
              <TextField
                label="Customer ID"
                name="customer"
                value={values.customer}
                onChange={set("customer")}
                autoComplete="off"
                inputMode="numeric"
                maxLength={40}
              />
              <TextField
                label="From (UTC)"
                name="from"
                type="date"
                value={values.from}
                onChange={set("from")}
                autoComplete="off"
              />
              <TextField
                label="To (UTC)"
                name="to"
                type="date"
                value={values.to}
                onChange={set("to")}
                autoComplete="off"
              />
              <Select
                label="Sort by date"
                name="sort"
                options={[
                  { label: "Newest first", value: "desc" },
                  { label: "Oldest first", value: "asc" },
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
            Apply filters
          </Button>
          <Button url="/app/log">Clear</Button>
          {small ? (
            <Button variant="plain" onClick={() => setMore((m) => !m)} ariaExpanded={more}>
              {more ? "Fewer filters" : `More filters${active ? ` (${active} set)` : ""}`}
            </Button>
          ) : null}
        </InlineStack>
      </BlockStack>
    </Form>
  );
}

type Row = ReturnType<typeof useLoaderData<typeof loader>>["page"]["rows"][number];

function RowTitle({ row }: { row: Row }) {
  return (
    <BlockStack gap="050">
      <Link to={`/app/log/${row.id}`} onClick={(e) => e.stopPropagation()} data-primary-link>
        <Text as="span" fontWeight="semibold">
          {row.kind === "handoff" ? "Cart handoff" : (row.orderName ?? `Order ${row.orderId}`)}
        </Text>
      </Link>
      <Text as="span" tone="subdued" variant="bodySm">
        {row.kind === "shipment"
          ? `Shipment ${row.externalId}`
          : row.kind === "order"
            ? `Order ${row.orderId}`
            : row.externalId}
      </Text>
    </BlockStack>
  );
}

function RowState({ row }: { row: Row }) {
  return (
    <InlineStack gap="100">
      <Badge tone={STATE_TONE[row.state]}>{STATE_LABEL[row.state] ?? row.state}</Badge>
      {row.resolved ? <Badge>Resolved</Badge> : null}
    </InlineStack>
  );
}

function RowReason({ row }: { row: Row }) {
  return (
    <Text as="span" tone={row.state === "failed" && !row.resolved ? "critical" : undefined}>
      {row.reason ?? ""}
    </Text>
  );
}

export default function SyncLog() {
  const { filter, query, page, paused, busy, filtered } = useLoaderData<typeof loader>();
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
      title="Sync log"
      subtitle="Every order, shipment and cart handoff sent to the Merchant Integration Service"
      primaryAction={
        paused
          ? { content: "Resume sync", onAction: () => post({ intent: "resume" }), loading: working }
          : { content: "Pause sync", destructive: true, onAction: () => post({ intent: "pause" }), loading: working }
      }
      secondaryActions={[
        { content: "Export CSV", onAction: exportCsv, accessibilityLabel: "Export CSV of this view" },
        { content: "Retry all failed in this view", onAction: () => post({ intent: "retry", all: "1" }) },
      ]}
    >
      <BlockStack gap="400">
        <ActionToast result={result} />
        {paused ? (
          <Card>
            <Text as="p" tone="caution">
              Sync is paused. New orders and shipments are recorded and wait. Nothing is dropped; resume to send them.
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
                      ? `No ${STATE_LABEL[filter.state].toLowerCase()} imports`
                      : "Nothing matches these filters"
                    : "No imports yet"}
                </Text>
                <Text as="p" tone="subdued" alignment="center">
                  {filtered
                    ? "Change or clear the filters to see more."
                    : "Orders and shipments appear here as Shopify sends them."}
                </Text>
              </BlockStack>
            </Box>
          ) : (
            <IndexTable
              resourceName={{ singular: "import", plural: "imports" }}
              itemCount={page.rows.length}
              condensed={condensed}
              selectedItemsCount={allResourcesSelected ? "All" : selectedResources.length}
              onSelectionChange={handleSelectionChange}
              hasMoreItems={!!page.next || !!page.previous}
              loading={working && navigation.formMethod?.toLowerCase() === "get"}
              promotedBulkActions={[
                {
                  content: allResourcesSelected ? "Retry all failed matching" : "Retry selected",
                  onAction: bulk("retry"),
                },
                {
                  content: allResourcesSelected ? "Resolve all matching" : "Mark as resolved",
                  onAction: bulk("resolve"),
                },
              ]}
              headings={[
                { title: "Order" },
                { title: "Customer" },
                { title: "Date" },
                { title: "State" },
                { title: "Details" },
                { title: "Attempts", alignment: "end" },
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
                          {[row.customer, utc(row.createdAt), `${row.attempts} attempt${row.attempts === 1 ? "" : "s"}`]
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
                      <IndexTable.Cell>{row.customer || "—"}</IndexTable.Cell>
                      <IndexTable.Cell>{utc(row.createdAt)}</IndexTable.Cell>
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
                          {row.attempts}
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
              label={`${page.rows.length} shown`}
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
