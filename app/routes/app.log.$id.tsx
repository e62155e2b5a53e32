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
import { KIND_LABEL, STATE_TONE, stateName } from "../components/sync-labels";
import { customerWords, outcomeWords, reasonParts, reasonWords } from "../admin/reason-words";
import { ReasonText, ServiceWords } from "../components/ServiceWords";
import { useI18n } from "../components/i18n";
import { requestLocale } from "../i18n/request.server";
import { translator, type Translator } from "../i18n/translate";
import { titleOf } from "../i18n/locale";
import type { RecordDetail, HandoffDetail } from "../admin/log-detail.server";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction<typeof loader> = ({ data, matches }) =>
  pageTitle(
    data ? titleOf(matches, ...entryTitle(data.entry)) : titleOf(matches, "log.entry.title"),
    titleOf(matches, "log.title"),
  );

/** "Order #1001", "Shipment 77 of #1001", "Cart handoff cart-7" as a message key and its variables. */
function entryTitle(entry: RecordDetail | HandoffDetail): Parameters<Translator["t"]> {
  if (entry.type === "handoff") return ["log.entry.handoff", { id: entry.externalCartId }];
  const order = entry.orderName ?? entry.orderId;
  return entry.kind === "order"
    ? ["log.entry.order", { order }]
    : ["log.entry.shipment", { id: entry.externalId, order }];
}

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
  const words = translator(requestLocale(request, session));
  let result: ActionResult;
  if (intent === "retry") result = await retryRecord(prisma, session.shop, id, undefined, words);
  else if (intent === "resolve") result = await resolveRecords(prisma, session.shop, [id], undefined, words);
  else result = { ok: false, message: words.t("action.unknown") };
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
  const i18n = useI18n();
  const { t, dateTime, money, number } = i18n;
  const title = t(...entryTitle(entry));
  const result = useActionData<typeof action>();
  const submit = useSubmit();
  const working = useNavigation().state !== "idle";
  useLiveRevalidation(entry.type === "record" && entry.busy);
  const post = (intent: string) => submit({ intent }, { method: "post" });

  if (entry.type === "handoff") {
    return (
      <Page title={title} backAction={{ content: t("log.title"), url: "/app/log" }}>
        <Card>
          <BlockStack gap="200">
            <Fact label={t("log.entry.state")}>
              <Badge tone={STATE_TONE[entry.state]}>{stateName(t, entry.state)}</Badge>
            </Fact>
            {entry.reason ? (
              <Fact label={t("log.entry.reason")}>
                <ReasonText parts={reasonParts(i18n, { ...entry, kind: "handoff" })} />
              </Fact>
            ) : null}
            <Fact label={t("log.entry.customer")}>
              {customerWords(t, entry.customer, entry.customerId) || t("log.entry.guest")}
            </Fact>
            <Fact label={t("log.entry.cart")}>
              {t("log.entry.cartLines", { count: entry.lineCount, total: money(entry.totalMinor, entry.currency) })}
            </Fact>
            <Fact label={t("log.entry.created")}>{dateTime(entry.createdAt)}</Fact>
            <Fact label={t("log.entry.expires")}>{dateTime(entry.expiresAt)}</Fact>
            <Fact label={t("log.entry.attempts")}>{number(entry.attempts)}</Fact>
          </BlockStack>
        </Card>
      </Page>
    );
  }

  return (
    <Page
      title={title}
      titleMetadata={<Badge tone={STATE_TONE[entry.state]}>{stateName(t, entry.state)}</Badge>}
      backAction={{ content: t("log.title"), url: "/app/log" }}
      primaryAction={{
        content: t("log.entry.retry"),
        onAction: () => post("retry"),
        loading: working,
        disabled: !entry.canRetry && !entry.busy,
      }}
      secondaryActions={[
        { content: t("log.bulk.resolve"), onAction: () => post("resolve"), disabled: !entry.canResolve },
        { content: t("log.entry.openOrder"), url: entry.adminOrderUrl },
      ]}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <ActionToast result={result} />
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {KIND_LABEL[entry.kind] ? t(KIND_LABEL[entry.kind]) : entry.kind}
                </Text>
                {entry.reason ? (
                  <Fact label={t("log.entry.reason")}>
                    <Text as="span" tone={entry.state === "failed" ? "critical" : undefined}>
                      <ReasonText parts={reasonParts(i18n, { ...entry, attempts: entry.attemptCount })} />
                    </Text>
                  </Fact>
                ) : null}
                {entry.resolvedAt ? <Fact label={t("state.resolved")}>{dateTime(entry.resolvedAt)}</Fact> : null}
                <Fact label={t("log.entry.shopifyOrder")}>
                  <a href={entry.adminOrderUrl}>{entry.orderId}</a>
                </Fact>
                {entry.kind === "shipment" ? <Fact label={t("log.entry.fulfillment")}>{entry.externalId}</Fact> : null}
                <Fact label={t("log.entry.customer")}>
                  {customerWords(t, entry.customer, entry.customerId) || t("log.entry.noCustomer")}
                </Fact>
                <Fact label={t("log.entry.workspace")}>{entry.workspaceId ?? "—"}</Fact>
                <Fact label={t("log.entry.serviceId")}>{entry.serviceId ?? "—"}</Fact>
                <Fact label={t("log.entry.received")}>{dateTime(entry.createdAt)}</Fact>
                <Fact label={t("log.entry.imported")}>{dateTime(entry.importedAt)}</Fact>
                <Fact label={t("log.entry.nextTry")}>
                  {entry.job?.nextTryAt
                    ? dateTime(entry.job.nextTryAt)
                    : t(entry.job?.status === "running" ? "log.entry.runningNow" : "log.entry.nonePlanned")}
                </Fact>
                {entry.job ? (
                  <Fact label={t("log.entry.budget")}>
                    {t("log.entry.budgetUsed", { used: entry.job.attempts, count: entry.job.maxAttempts })}
                  </Fact>
                ) : null}
              </BlockStack>
            </Card>
            <Card padding="0">
              <Box padding="400">
                <Text as="h2" variant="headingMd">
                  {t("log.entry.attempts")}
                </Text>
              </Box>
              {entry.attempts.length === 0 ? (
                <Box padding="400" paddingBlockStart="0">
                  <Text as="p" tone="subdued">
                    {t("log.entry.notSent")}
                  </Text>
                </Box>
              ) : (
                <ScrollRegion label={t("log.entry.attempts")}>
                  <DataTable
                    columnContentTypes={["text", "text", "text", "text"]}
                    headings={[
                      t("log.attempt.time"),
                      t("log.attempt.http"),
                      t("log.attempt.code"),
                      t("log.attempt.what"),
                    ]}
                    rows={entry.attempts.map((a) => [
                      dateTime(a.at),
                      a.httpStatus === null ? "—" : String(a.httpStatus),
                      a.errorCode ?? (a.ok ? "—" : ""),
                      <div key={a.at} style={{ whiteSpace: "normal", minWidth: "14rem" }}>
                        {i18n.storedWordsFit && a.message
                          ? a.message
                          : outcomeWords(t, a.replayed ? "replayed" : a.outcome)}
                        {a.serviceMessage && !(i18n.storedWordsFit && a.message) ? (
                          <>
                            {" "}
                            <ServiceWords words={a.serviceMessage} />
                          </>
                        ) : null}
                      </div>,
                    ])}
                  />
                </ScrollRegion>
              )}
            </Card>
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {t("log.entry.request")}
                </Text>
                {"json" in entry.request ? (
                  // Focusable: it scrolls, and keyboard users scroll it with the arrow keys once it has focus.
                  <pre
                    tabIndex={0}
                    role="region"
                    aria-label={t("log.entry.requestJson")}
                    translate="no"
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
                    {t(`log.entry.missing.${entry.request.missing}`, {
                      detail:
                        reasonWords(i18n, {
                          reasonCode: entry.request.reasonCode,
                          reasonDetails: entry.request.reasonDetails,
                          reason: entry.request.detail ?? null,
                          kind: entry.kind,
                          attempts: entry.attemptCount,
                        }) ?? "",
                    })}
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
