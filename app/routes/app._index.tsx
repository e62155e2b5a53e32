// Sync status: every import with its state, the reason in plain words, attempts and last attempt; filter by state,
// pages, Retry for failed/skipped rows, Pause/Resume for the shop, backfill progress. Logic: app/sync/status.server.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigate, useNavigation, useSubmit } from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Layout,
  Page,
  Pagination,
  ProgressBar,
  Tabs,
  Text,
} from "@shopify/polaris";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { loadSyncStatus, retryImport, setSyncPaused, type SyncActionResult } from "../sync/status.server";
import { SYNC_STATES } from "../sync/states";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const url = new URL(request.url);
  return loadSyncStatus(prisma, session.shop, { state: url.searchParams.get("state"), page: url.searchParams.get("page") });
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  let result: SyncActionResult;
  if (intent === "pause" || intent === "resume") result = await setSyncPaused(prisma, session.shop, intent === "pause");
  else if (intent === "retry") result = await retryImport(prisma, session.shop, String(form.get("recordId") ?? ""));
  else result = { ok: false, message: "Unknown action." };
  return data(result, { status: result.ok ? 200 : 400 });
};

const TONE: Record<string, "success" | "info" | "attention" | "warning" | "critical" | undefined> = {
  imported: "success",
  updated: "success",
  pending: "info",
  waiting: "attention",
  skipped: "warning",
  failed: "critical",
};

const LABEL: Record<string, string> = {
  pending: "Pending",
  waiting: "Waiting",
  imported: "Imported",
  updated: "Updated",
  skipped: "Skipped",
  failed: "Failed",
};

export default function SyncStatus() {
  const view = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const submit = useSubmit();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";

  const tabs = [
    { id: "all", content: `All (${Object.values(view.counts).reduce((a, b) => a + b, 0)})` },
    ...SYNC_STATES.map((s) => ({ id: s, content: `${LABEL[s]} (${view.counts[s]})` })),
  ];
  const selectedTab = view.state ? SYNC_STATES.indexOf(view.state) + 1 : 0;
  const go = (state: string | null, page = 1) => {
    const params = new URLSearchParams(window.location.search);
    if (state) params.set("state", state);
    else params.delete("state");
    params.set("page", String(page));
    navigate(`?${params.toString()}`);
  };
  const post = (data: Record<string, string>) => submit(data, { method: "post" });

  return (
    <Page
      title="Sync status"
      subtitle={`Orders and shipments of ${view.shop} sent to the Merchant Integration Service`}
      primaryAction={
        view.paused
          ? { content: "Resume sync", onAction: () => post({ intent: "resume" }), loading: busy }
          : { content: "Pause sync", destructive: true, onAction: () => post({ intent: "pause" }), loading: busy }
      }
    >
      <Layout>
        {result ? (
          <Layout.Section>
            <Banner tone={result.ok ? "success" : "critical"}>{result.message}</Banner>
          </Layout.Section>
        ) : null}
        {view.paused ? (
          <Layout.Section>
            <Banner tone="warning" title="Sync is paused">
              New orders and shipments are recorded and wait. Nothing is dropped; resume to send them.
            </Banner>
          </Layout.Section>
        ) : null}
        {view.backfills.length > 0 ? (
          <Layout.Section>
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  Past orders of newly connected customers
                </Text>
                {view.backfills.map((b) => (
                  <BlockStack gap="100" key={b.id}>
                    <InlineStack align="space-between">
                      <Text as="span">
                        {b.customer}: last {b.days} days, {b.queued} of {b.total} orders queued
                      </Text>
                      <Badge tone={b.status === "done" ? "success" : b.status === "failed" ? "critical" : "info"}>
                        {b.status === "done" ? "Done" : b.status === "failed" ? "Failed" : "Running"}
                      </Badge>
                    </InlineStack>
                    <ProgressBar progress={b.percent} size="small" tone={b.status === "failed" ? "critical" : "primary"} />
                    {b.error ? (
                      <Text as="p" tone="subdued">
                        {b.error}
                      </Text>
                    ) : null}
                  </BlockStack>
                ))}
              </BlockStack>
            </Card>
          </Layout.Section>
        ) : null}
        <Layout.Section>
          <Card padding="0">
            <Tabs tabs={tabs} selected={selectedTab} onSelect={(i) => go(i === 0 ? null : SYNC_STATES[i - 1])} />
            {view.rows.length === 0 ? (
              <Box padding="600">
                <BlockStack gap="200" inlineAlign="center">
                  <Text as="h3" variant="headingMd">
                    {view.state ? `No ${LABEL[view.state].toLowerCase()} imports` : "No imports yet"}
                  </Text>
                  <Text as="p" tone="subdued">
                    Orders and shipments appear here as Shopify sends them.
                  </Text>
                </BlockStack>
              </Box>
            ) : (
              <IndexTable
                resourceName={{ singular: "import", plural: "imports" }}
                itemCount={view.rows.length}
                selectable={false}
                headings={[
                  { title: "Import" },
                  { title: "State" },
                  { title: "Details" },
                  { title: "Attempts", alignment: "end" },
                  { title: "Last attempt" },
                  { title: "" },
                ]}
              >
                {view.rows.map((row, index) => (
                  <IndexTable.Row id={row.id} key={row.id} position={index}>
                    <IndexTable.Cell>
                      <BlockStack gap="050">
                        <Text as="span" fontWeight="semibold">
                          {row.kind === "order" ? `Order ${row.externalId}` : `Shipment ${row.externalId}`}
                        </Text>
                        {row.kind === "shipment" ? (
                          <Text as="span" tone="subdued" variant="bodySm">
                            of order {row.orderId}
                          </Text>
                        ) : null}
                      </BlockStack>
                    </IndexTable.Cell>
                    <IndexTable.Cell>
                      <Badge tone={TONE[row.state]}>{LABEL[row.state] ?? row.state}</Badge>
                    </IndexTable.Cell>
                    <IndexTable.Cell>
                      <div style={{ whiteSpace: "normal", maxWidth: "28rem" }}>
                        <Text as="span" tone={row.state === "failed" ? "critical" : undefined}>
                          {row.reason ?? (row.workspaceId ? `In workspace ${row.workspaceId}` : "")}
                        </Text>
                      </div>
                    </IndexTable.Cell>
                    <IndexTable.Cell>
                      <Text as="span" alignment="end" numeric>
                        {row.attempts}
                      </Text>
                    </IndexTable.Cell>
                    <IndexTable.Cell>{row.lastAttemptAt ?? "—"}</IndexTable.Cell>
                    <IndexTable.Cell>
                      {row.canRetry ? (
                        <Button size="slim" disabled={busy} onClick={() => post({ intent: "retry", recordId: row.id })} accessibilityLabel={`Retry ${row.kind} ${row.externalId}`}>
                          Retry
                        </Button>
                      ) : null}
                    </IndexTable.Cell>
                  </IndexTable.Row>
                ))}
              </IndexTable>
            )}
            <div style={{ padding: "12px", display: "flex", justifyContent: "center" }}>
              <Pagination
                hasPrevious={view.page > 1}
                hasNext={view.page < view.pageCount}
                onPrevious={() => go(view.state, view.page - 1)}
                onNext={() => go(view.state, view.page + 1)}
                label={`Page ${view.page} of ${view.pageCount} · ${view.total} imports`}
              />
            </div>
          </Card>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
