// One record of the sync log: its Shopify order, the request built for the service, every attempt, the next try,
// the workspace; retry now and mark resolved. Logic: app/admin/log-detail.server.ts and log-actions.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { Badge, BlockStack, Box, Card, DataTable, InlineStack, Layout, Page, Text } from "@shopify/polaris";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { readForm } from "../lib/form.server";
import { loadLogEntry } from "../admin/log-detail.server";
import { resolveRecords, retryRecord, type ActionResult } from "../admin/log-actions.server";
import { ActionToast } from "../components/ActionToast";
import { ScrollRegion } from "../components/ScrollRegion";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { useLiveRevalidation } from "../components/useLiveRevalidation";
import { KIND_LABEL, STATE_LABEL, STATE_TONE, utc } from "../components/sync-labels";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  pageTitle(data?.entry.title ?? "Sync log entry", "Sync log");

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const entry = await loadLogEntry(prisma, session.shop, params.id ?? "");
  if (!entry) throw new Response("Not found", { status: 404 });
  return { entry };
};

export const action = async ({ request, params }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const intent = (await readForm(request)).get("intent");
  const id = params.id ?? "";
  let result: ActionResult;
  if (intent === "retry") result = await retryRecord(prisma, session.shop, id);
  else if (intent === "resolve") result = await resolveRecords(prisma, session.shop, [id]);
  else result = { ok: false, message: "Unknown action." };
  return result;
};

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <InlineStack gap="200" wrap blockAlign="start">
      <Box minWidth="9rem">
        <Text as="span" tone="subdued">
          {label}
        </Text>
      </Box>
      <div style={{ minWidth: 0, overflowWrap: "anywhere", flex: "1 1 12rem" }}>{children}</div>
    </InlineStack>
  );
}

export default function LogEntry() {
  const { entry } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const submit = useSubmit();
  const working = useNavigation().state !== "idle";
  useLiveRevalidation(entry.type === "record" && entry.busy);
  const post = (intent: string) => submit({ intent }, { method: "post" });

  if (entry.type === "handoff") {
    return (
      <Page title={entry.title} backAction={{ content: "Sync log", url: "/app/log" }}>
        <Card>
          <BlockStack gap="200">
            <Fact label="State">
              <Badge tone={STATE_TONE[entry.state]}>{STATE_LABEL[entry.state] ?? entry.state}</Badge>
            </Fact>
            {entry.reason ? <Fact label="Reason">{entry.reason}</Fact> : null}
            <Fact label="Customer">{entry.customer}</Fact>
            <Fact label="Cart">{`${entry.lineCount} line${entry.lineCount === 1 ? "" : "s"}, ${entry.total}`}</Fact>
            <Fact label="Created">{utc(entry.createdAt)}</Fact>
            <Fact label="Expires">{utc(entry.expiresAt)}</Fact>
            <Fact label="Attempts">{String(entry.attempts)}</Fact>
          </BlockStack>
        </Card>
      </Page>
    );
  }

  return (
    <Page
      title={entry.title}
      titleMetadata={<Badge tone={STATE_TONE[entry.state]}>{STATE_LABEL[entry.state] ?? entry.state}</Badge>}
      backAction={{ content: "Sync log", url: "/app/log" }}
      primaryAction={{
        content: "Retry now",
        onAction: () => post("retry"),
        loading: working,
        disabled: !entry.canRetry && !entry.busy,
      }}
      secondaryActions={[
        { content: "Mark as resolved", onAction: () => post("resolve"), disabled: !entry.canResolve },
        { content: "Open order in Shopify", url: entry.adminOrderUrl },
      ]}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <ActionToast result={result} />
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {KIND_LABEL[entry.kind] ?? entry.kind}
                </Text>
                {entry.reason ? (
                  <Fact label="Reason">
                    <Text as="span" tone={entry.state === "failed" ? "critical" : undefined}>
                      {entry.reason}
                    </Text>
                  </Fact>
                ) : null}
                {entry.resolvedAt ? <Fact label="Resolved">{utc(entry.resolvedAt)}</Fact> : null}
                <Fact label="Shopify order">
                  <a href={entry.adminOrderUrl}>{entry.orderId}</a>
                </Fact>
                {entry.kind === "shipment" ? <Fact label="Fulfillment">{entry.externalId}</Fact> : null}
                <Fact label="Customer">{entry.customer}</Fact>
                <Fact label="Workspace">{entry.workspaceId ?? "—"}</Fact>
                <Fact label="Service id">{entry.serviceId ?? "—"}</Fact>
                <Fact label="Received">{utc(entry.createdAt)}</Fact>
                <Fact label="Imported">{utc(entry.importedAt)}</Fact>
                <Fact label="Next try">
                  {entry.job?.nextTryAt
                    ? utc(entry.job.nextTryAt)
                    : entry.job?.status === "running"
                      ? "Running now"
                      : "None planned"}
                </Fact>
                {entry.job ? (
                  <Fact label="Attempt budget">{`${entry.job.attempts} of ${entry.job.maxAttempts} used`}</Fact>
                ) : null}
              </BlockStack>
            </Card>
            <Card padding="0">
              <Box padding="400">
                <Text as="h2" variant="headingMd">
                  Attempts
                </Text>
              </Box>
              {entry.attempts.length === 0 ? (
                <Box padding="400" paddingBlockStart="0">
                  <Text as="p" tone="subdued">
                    Not sent to the service yet.
                  </Text>
                </Box>
              ) : (
                <ScrollRegion label="Attempts">
                  <DataTable
                    columnContentTypes={["text", "text", "text", "text"]}
                    headings={["Time", "HTTP status", "Error code", "What happened"]}
                    rows={entry.attempts.map((a) => [
                      utc(a.at),
                      a.httpStatus === null ? "—" : String(a.httpStatus),
                      a.errorCode ?? (a.ok ? "—" : ""),
                      <div key={a.at} style={{ whiteSpace: "normal", minWidth: "14rem" }}>
                        {a.explanation}
                      </div>,
                    ])}
                  />
                </ScrollRegion>
              )}
            </Card>
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Request sent to the service
                </Text>
                {"json" in entry.request ? (
                  // Focusable: it scrolls, and keyboard users scroll it with the arrow keys once it has focus.
                  <pre
                    tabIndex={0}
                    role="region"
                    aria-label="Request sent to the service (JSON)"
                    style={{
                      margin: 0,
                      maxHeight: "24rem",
                      overflow: "auto",
                      fontSize: "12px",
                      background: "#f7f7f7",
                      padding: "8px",
                      borderRadius: "8px",
                    }}
                  >
                    {entry.request.json}
                  </pre>
                ) : (
                  <Text as="p" tone="subdued">
                    {entry.request.missing}
                  </Text>
                )}
              </BlockStack>
            </Card>
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="log.entry.title" />;
}
