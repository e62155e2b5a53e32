// Home: the shop's sync health at a glance, imports and failures per day, backfill progress, and the setup guide
// until setup is done. Logic: app/admin/home.server.ts. Refreshes itself while work is running.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import {
  Badge,
  BlockStack,
  Box,
  Button,
  ButtonGroup,
  Card,
  InlineGrid,
  InlineStack,
  Layout,
  Page,
  ProgressBar,
  Text,
} from "@shopify/polaris";
import { useState } from "react";
import { TitleBar } from "@shopify/app-bridge-react";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { accountSurfaceOf, loadHome, type AccountSurface } from "../admin/home.server";
import { customerAccountsOf } from "../connections/account-root.server";
import { adminGraphqlOf } from "../shopify/admin-api.server";
import { loadBackfills } from "../admin/backfills.server";
import { backfillErrorWords } from "../admin/backfill-words";
import { checkWords } from "../admin/check-words";
import { embedStatus, themeEditorLinks, type EmbedStatus, type ThemeLinks } from "../admin/theme-setup.server";
import { env } from "../env.server";
import { DayChart } from "../components/DayChart";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { useLiveRevalidation } from "../components/useLiveRevalidation";
import { useI18n } from "../components/i18n";
import { titleOf } from "../i18n/locale";
import type { MessageKey } from "../i18n/catalog";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "home.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  // The published theme's app embed, through the library's Admin API client (read_themes); "unknown" on any failure.
  const graphql = adminGraphqlOf(admin);
  const [home, backfills, embed] = await Promise.all([
    loadHome(prisma, session.shop),
    loadBackfills(prisma, session.shop),
    Promise.race([
      embedStatus(graphql, session.shop),
      new Promise<EmbedStatus>((resolve) => setTimeout(() => resolve({ state: "unknown", why: "timeout" }), 3000)),
    ]),
  ]);
  // The theme step is done once the embed is on (read from the theme) or a customer connected through the block.
  const setup = home.setup.map((s) => (s.id === "theme" ? { ...s, done: s.done || embed.state === "on" } : s));
  const links = themeEditorLinks(session.shop, env().SHOPIFY_API_KEY);
  // Which customer accounts the store has decides where "Connect workspace" goes; asked only while that step is open.
  const themeStepOpen = setup.some((s) => s.id === "theme" && !s.done);
  const accounts = themeStepOpen ? await customerAccountsOf(session.shop, adminGraphqlOf(admin)) : { version: null };
  const surface = accountSurfaceOf(accounts.version);
  return {
    shop: session.shop,
    home: { ...home, setup },
    backfills,
    embed,
    links,
    surface,
    busy: home.busy || backfills.some((b) => b.status === "running"),
  };
};

const age = (t: ReturnType<typeof useI18n>["t"], seconds: number) =>
  seconds < 90
    ? t("home.age.seconds", { count: seconds })
    : seconds < 5400
      ? t("home.age.minutes", { count: Math.round(seconds / 60) })
      : seconds < 172_800
        ? t("home.age.hours", { count: Math.round(seconds / 3600) })
        : t("home.age.days", { count: Math.round(seconds / 86_400) });

type Step = {
  title: MessageKey;
  help: MessageKey;
  action: MessageKey;
  url: (handle: string) => string;
  external?: boolean;
};

// The "Connect workspace" step as it fits the store's customer accounts (README, "Connect workspace").
const THEME_STEP: Record<AccountSurface, Partial<Step>> = {
  customer_accounts: {
    title: "home.setup.theme.accounts.title",
    help: "home.setup.theme.accounts.help",
    action: "home.setup.theme.accounts.action",
    url: (handle) => `https://admin.shopify.com/store/${handle}/settings/checkout/editor`,
  },
  legacy_accounts: {
    help: "home.setup.theme.legacy.help",
  },
  unknown: {},
};

const STEPS: Record<string, Step> = {
  settings: {
    title: "home.setup.settings.title",
    help: "home.setup.settings.help",
    action: "home.setup.settings.action",
    url: () => "/app/settings",
  },
  check: {
    title: "home.setup.check.title",
    help: "home.setup.check.help",
    action: "home.setup.check.action",
    url: () => "/app/settings",
  },
  theme: {
    title: "home.setup.theme.title",
    help: "home.setup.theme.help",
    action: "home.setup.theme.action",
    url: () => "",
    external: true,
  },
  import: {
    title: "home.setup.import.title",
    help: "home.setup.import.help",
    action: "home.setup.import.action",
    url: () => "/app/log",
  },
};

// Where the theme stands (read from the published theme) and the theme editor's deep links for each piece.
function ThemeStatus({ embed, links }: { embed: EmbedStatus; links: ThemeLinks }) {
  const { t } = useI18n();
  const theme = embed.state === "unknown" ? "" : embed.themeName || t("home.embed.publishedTheme");
  return (
    <BlockStack gap="100">
      <InlineStack gap="100" blockAlign="center">
        {embed.state === "on" ? (
          <Badge tone="success">{t("home.embed.on", { theme })}</Badge>
        ) : embed.state === "off" ? (
          <Badge tone="attention">{t("home.embed.off", { theme })}</Badge>
        ) : (
          <Badge>{t("home.embed.notChecked")}</Badge>
        )}
        {embed.state === "unknown" ? (
          <Text as="span" tone="subdued" variant="bodySm">
            {t(`home.embed.why.${embed.why}`)}
          </Text>
        ) : null}
      </InlineStack>
      <InlineStack gap="200" wrap>
        {embed.state === "on" ? null : (
          <Button url={links.embed} target="_top" variant="primary" size="slim">
            {t("home.setup.theme.action")}
          </Button>
        )}
        <Button url={links.continueCart} target="_top" size="slim">
          {t("home.embed.addContinueCart")}
        </Button>
        <Button url={links.connectWorkspace} target="_top" size="slim">
          {t("home.embed.addConnectWorkspace")}
        </Button>
      </InlineStack>
    </BlockStack>
  );
}

function Stat({ label, value, children }: { label: string; value: string; children?: React.ReactNode }) {
  return (
    <Card>
      <BlockStack gap="100">
        <Text as="h3" variant="headingSm" tone="subdued">
          {label}
        </Text>
        <Text as="p" variant="headingLg">
          {value}
        </Text>
        {children}
      </BlockStack>
    </Card>
  );
}

export default function Home() {
  const { shop, home, backfills, embed, links, surface, busy } = useLoaderData<typeof loader>();
  const i18n = useI18n();
  const { t, dateTime, number } = i18n;
  useLiveRevalidation(busy);
  const [range, setRange] = useState<7 | 30>(7);
  const handle = shop.replace(/\.myshopify\.com$/, "");
  const remaining = home.setup.filter((s) => !s.done);
  const check = home.settings.lastCheck;
  return (
    <Page title={t("home.title")} subtitle={t("home.subtitle", { shop })}>
      <TitleBar title={t("home.title")} />
      <Layout>
        {remaining.length > 0 ? (
          <Layout.Section>
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  {t("home.setup.heading", { done: home.setup.length - remaining.length, total: home.setup.length })}
                </Text>
                <ProgressBar
                  progress={(100 * (home.setup.length - remaining.length)) / home.setup.length}
                  size="small"
                />
                {home.setup.map((step, i) => {
                  const s = step.id === "theme" ? { ...STEPS.theme, ...THEME_STEP[surface] } : STEPS[step.id];
                  return (
                    <InlineStack key={step.id} align="space-between" blockAlign="center" gap="200" wrap>
                      <BlockStack gap="050">
                        <Text as="h3" fontWeight="semibold" tone={step.done ? "subdued" : undefined}>
                          {i + 1}. {t(s.title)} {step.done ? <Badge tone="success">{t("common.done")}</Badge> : null}
                        </Text>
                        <Text as="p" tone="subdued" variant="bodySm">
                          {t(s.help)}
                        </Text>
                        {step.id === "theme" ? <ThemeStatus embed={embed} links={links} /> : null}
                      </BlockStack>
                      {/* The theme's pieces have their own links (ThemeStatus); customer accounts, the accounts editor. */}
                      {step.done || (step.id === "theme" && surface !== "customer_accounts") ? null : (
                        <Button url={s.url(handle)} target={s.external ? "_blank" : undefined}>
                          {t(s.action)}
                        </Button>
                      )}
                    </InlineStack>
                  );
                })}
              </BlockStack>
            </Card>
          </Layout.Section>
        ) : null}
        <Layout.Section>
          <InlineGrid columns={{ xs: 1, sm: 2, md: 3 }} gap="300">
            <Stat
              label={t("home.stat.settings")}
              value={t(home.settings.complete ? "home.stat.complete" : "home.stat.notComplete")}
            >
              <InlineStack gap="100">
                <Badge tone={home.settings.environment === "production" ? "success" : "info"}>
                  {t(home.settings.environment === "production" ? "common.production" : "common.sandbox")}
                </Badge>
                {check ? (
                  <Badge tone={check.ok ? "success" : "critical"}>
                    {t(check.ok ? "home.check.ok" : "home.check.failed")}
                  </Badge>
                ) : null}
              </InlineStack>
              <Text as="p" tone="subdued" variant="bodySm">
                {check
                  ? check.ok
                    ? t("home.check.lastChecked", { at: dateTime(check.at) })
                    : t("home.check.lastCheckedFailed", { at: dateTime(check.at), message: checkWords(i18n, check) })
                  : t("home.check.never")}
              </Text>
            </Stat>
            <Stat
              label={t("home.stat.worker")}
              value={t(home.worker.alive ? "home.worker.running" : "home.worker.notRunning")}
            >
              <Text as="p" tone={home.worker.alive ? "subdued" : "critical"} variant="bodySm">
                {home.worker.alive
                  ? t("home.worker.backlog", { count: home.backlog })
                  : home.worker.lastBeatAt
                    ? t("home.worker.silentSince", { at: dateTime(home.worker.lastBeatAt), count: home.backlog })
                    : t("home.worker.silent", { count: home.backlog })}
              </Text>
              <Text as="p" tone="subdued" variant="bodySm">
                {home.oldestWaitingSeconds === null
                  ? t("home.worker.nothingWaiting")
                  : t("home.worker.oldest", { age: age(t, home.oldestWaitingSeconds) })}
              </Text>
            </Stat>
            <Stat label={t("home.stat.importedToday")} value={number(home.importsToday)} />
            <Stat label={t("home.stat.attention")} value={number(home.needsAttention)}>
              {home.needsAttention > 0 ? (
                <div>
                  <Button url="/app/log?state=attention" variant="plain">
                    {t("home.seeFailures")}
                  </Button>
                </div>
              ) : (
                <Text as="p" tone="subdued" variant="bodySm">
                  {t("home.nothingToFix")}
                </Text>
              )}
            </Stat>
            <Stat label={t("home.stat.customers")} value={number(home.customersConnected)}>
              <div>
                <Button url="/app/customers" variant="plain">
                  {t("home.seeCustomers")}
                </Button>
              </div>
            </Stat>
          </InlineGrid>
        </Layout.Section>
        <Layout.Section>
          <Card>
            <BlockStack gap="300">
              <InlineStack align="space-between" blockAlign="center" wrap>
                <Text as="h2" variant="headingMd">
                  {t("home.chart.heading")}
                </Text>
                <ButtonGroup variant="segmented">
                  <Button pressed={range === 7} onClick={() => setRange(7)}>
                    {t("home.chart.days", { count: 7 })}
                  </Button>
                  <Button pressed={range === 30} onClick={() => setRange(30)}>
                    {t("home.chart.days", { count: 30 })}
                  </Button>
                </ButtonGroup>
              </InlineStack>
              <DayChart id={`chart-${range}`} points={home.days.slice(-range)} />
            </BlockStack>
          </Card>
        </Layout.Section>
        {backfills.length > 0 ? (
          <Layout.Section>
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  {t("home.backfills.heading")}
                </Text>
                {backfills.map((b) => (
                  <BlockStack gap="100" key={b.id}>
                    <InlineStack align="space-between" wrap>
                      <Text as="span">
                        {t("home.backfills.progress", {
                          customer: b.customer,
                          days: b.days,
                          queued: b.queued,
                          imported: b.imported,
                          count: b.total,
                        })}
                      </Text>
                      <Badge tone={b.status === "done" ? "success" : b.status === "failed" ? "critical" : "info"}>
                        {t(
                          b.status === "done"
                            ? "common.done"
                            : b.status === "failed"
                              ? "common.failed"
                              : "common.running",
                        )}
                      </Badge>
                    </InlineStack>
                    <Text as="p" tone="subdued">
                      {t(b.path === "bulk" ? "home.backfills.pathBulk" : "home.backfills.pathPaged")}
                      {b.bulk
                        ? b.bulk.stage === "waiting"
                          ? t("home.backfills.bulkWaiting")
                          : b.bulk.stage === "running"
                            ? t(
                                b.bulk.shopifyStatus === "CREATED"
                                  ? "home.backfills.bulkCreated"
                                  : "home.backfills.bulkRunning",
                                {
                                  count: b.bulk.objects,
                                },
                              )
                            : t("home.backfills.bulkReading")
                        : ""}
                    </Text>
                    <ProgressBar
                      progress={b.percent}
                      size="small"
                      tone={b.status === "failed" ? "critical" : "primary"}
                    />
                    <BackfillError backfill={b} />
                  </BlockStack>
                ))}
              </BlockStack>
            </Card>
          </Layout.Section>
        ) : null}
        <Layout.Section>
          <Box paddingBlockEnd="400" />
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="home.title" />;
}

/** Why a backfill waits or failed, in the admin's language; Shopify's own error code shown as it spells it. */
function BackfillError({ backfill }: { backfill: { error: string | null; errorDetails?: unknown } }) {
  const i18n = useI18n();
  const { t } = i18n;
  const words = backfillErrorWords(i18n, backfill);
  if (!words) return null;
  return (
    <Text as="p" tone="subdued">
      {words.text}
      {words.shopifyCode ? (
        <>
          {" "}
          ({t("home.backfills.shopifyCode")} <code translate="no">{words.shopifyCode}</code>)
        </>
      ) : null}
    </Text>
  );
}
