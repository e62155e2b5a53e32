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
import { customerAccountsOf } from "../connections/customer-account.server";
import { adminGraphqlOf } from "../shopify/admin-api.server";
import { loadBackfills } from "../admin/backfills.server";
import { embedStatus, themeEditorLinks, type EmbedStatus, type ThemeLinks } from "../admin/theme-setup.server";
import { env } from "../env.server";
import { DayChart } from "../components/DayChart";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { useLiveRevalidation } from "../components/useLiveRevalidation";
import { utc } from "../components/sync-labels";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = () => pageTitle("Home");

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  // The published theme's app embed, through the library's Admin API client (read_themes); "unknown" on any failure.
  const graphql = adminGraphqlOf(admin);
  const [home, backfills, embed] = await Promise.all([
    loadHome(prisma, session.shop),
    loadBackfills(prisma, session.shop),
    Promise.race([
      embedStatus(graphql, session.shop),
      new Promise<EmbedStatus>((resolve) =>
        setTimeout(() => resolve({ state: "unknown", why: "Shopify did not answer in time." }), 3000),
      ),
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

const age = (seconds: number) =>
  seconds < 90
    ? `${seconds} s`
    : seconds < 5400
      ? `${Math.round(seconds / 60)} min`
      : seconds < 172_800
        ? `${Math.round(seconds / 3600)} h`
        : `${Math.round(seconds / 86_400)} days`;

// The "Connect workspace" step as it fits the store's customer accounts (README, "Connect workspace").
const THEME_STEP: Record<AccountSurface, Partial<(typeof STEPS)[string]>> = {
  customer_accounts: {
    title: "Add the Workspace blocks to customer accounts",
    help: "Your store uses customer accounts: in the checkout and accounts editor, add the app’s Workspace block to the Profile page and to Order status. Its Connect button opens the app’s Connect workspace page, which needs no placing (you may add it to the account menu). Add “Continue cart” to the cart in the theme editor. Done once a customer has connected.",
    action: "Open checkout and accounts editor",
    url: (handle) => `https://admin.shopify.com/store/${handle}/settings/checkout/editor`,
  },
  legacy_accounts: {
    help: "Your store uses legacy customer accounts: add the “Connect workspace” block to the customer account page in the theme editor, and “Continue cart” to the cart. Done once a customer has connected.",
  },
  unknown: {},
};

const STEPS: Record<
  string,
  { title: string; help: string; action: string; url: (handle: string) => string; external?: boolean }
> = {
  settings: {
    title: "Enter the service settings",
    help: "Client ID, secrets and addresses of the Merchant Integration Service.",
    action: "Open settings",
    url: () => "/app/settings",
  },
  check: {
    title: "Check the connection",
    help: "Settings → Check connection: the service accepts your credentials.",
    action: "Check connection",
    url: () => "/app/settings",
  },
  theme: {
    title: "Switch on the app embed and add the blocks",
    help: "The theme editor opens with each one ready: switch on the app embed, then save.",
    action: "Switch on the app embed",
    url: () => "",
    external: true,
  },
  import: {
    title: "See the first import",
    help: "The next order of a connected customer shows up in the sync log.",
    action: "Open sync log",
    url: () => "/app/log",
  },
};

// Where the theme stands (read from the published theme) and the theme editor's deep links for each piece.
function ThemeStatus({ embed, links }: { embed: EmbedStatus; links: ThemeLinks }) {
  return (
    <BlockStack gap="100">
      <InlineStack gap="100" blockAlign="center">
        {embed.state === "on" ? (
          <Badge tone="success">{`App embed on in ${embed.themeName || "the published theme"}`}</Badge>
        ) : embed.state === "off" ? (
          <Badge tone="attention">{`App embed off in ${embed.themeName || "the published theme"}`}</Badge>
        ) : (
          <Badge>App embed: not checked</Badge>
        )}
        {embed.state === "unknown" ? (
          <Text as="span" tone="subdued" variant="bodySm">
            {embed.why}
          </Text>
        ) : null}
      </InlineStack>
      <InlineStack gap="200" wrap>
        {embed.state === "on" ? null : (
          <Button url={links.embed} target="_top" variant="primary" size="slim">
            Switch on the app embed
          </Button>
        )}
        <Button url={links.continueCart} target="_top" size="slim">
          Add the Continue cart block
        </Button>
        <Button url={links.connectWorkspace} target="_top" size="slim">
          Add the Connect workspace block
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
  useLiveRevalidation(busy);
  const [range, setRange] = useState<7 | 30>(7);
  const handle = shop.replace(/\.myshopify\.com$/, "");
  const remaining = home.setup.filter((s) => !s.done);
  const check = home.settings.lastCheck;
  return (
    <Page title="Home" subtitle={`Orders and shipments of ${shop} sent to the Merchant Integration Service`}>
      <TitleBar title="Home" />
      <Layout>
        {remaining.length > 0 ? (
          <Layout.Section>
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  Setup guide: {home.setup.length - remaining.length} of {home.setup.length} done
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
                          {i + 1}. {s.title} {step.done ? <Badge tone="success">Done</Badge> : null}
                        </Text>
                        <Text as="p" tone="subdued" variant="bodySm">
                          {s.help}
                        </Text>
                        {step.id === "theme" ? <ThemeStatus embed={embed} links={links} /> : null}
                      </BlockStack>
                      {/* The theme's pieces have their own links (ThemeStatus); customer accounts, the accounts editor. */}
                      {step.done || (step.id === "theme" && surface !== "customer_accounts") ? null : (
                        <Button url={s.url(handle)} target={s.external ? "_blank" : undefined}>
                          {s.action}
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
            <Stat label="Service settings" value={home.settings.complete ? "Complete" : "Not complete"}>
              <InlineStack gap="100">
                <Badge tone={home.settings.environment === "production" ? "success" : "info"}>
                  {home.settings.environment === "production" ? "Production" : "Sandbox"}
                </Badge>
                {check ? (
                  <Badge tone={check.ok ? "success" : "critical"}>{check.ok ? "Connection ok" : "Check failed"}</Badge>
                ) : null}
              </InlineStack>
              <Text as="p" tone="subdued" variant="bodySm">
                {check
                  ? `Last checked ${utc(check.at)}${check.ok ? "" : `: ${check.message}`}`
                  : "Connection not checked yet."}
              </Text>
            </Stat>
            <Stat label="Worker" value={home.worker.alive ? "Running" : "Not running"}>
              <Text as="p" tone={home.worker.alive ? "subdued" : "critical"} variant="bodySm">
                {home.worker.alive
                  ? `${home.backlog} waiting or running`
                  : `No worker has reported ${home.worker.lastBeatAt ? `since ${utc(home.worker.lastBeatAt)}` : "yet"}; ${home.backlog} imports wait.`}
              </Text>
              <Text as="p" tone="subdued" variant="bodySm">
                {home.oldestWaitingSeconds === null
                  ? "Nothing is waiting."
                  : `Oldest waiting: ${age(home.oldestWaitingSeconds)}`}
              </Text>
            </Stat>
            <Stat label="Imported today (UTC)" value={String(home.importsToday)} />
            <Stat label="Failures needing attention" value={String(home.needsAttention)}>
              {home.needsAttention > 0 ? (
                <div>
                  <Button url="/app/log?state=attention" variant="plain">
                    See failures
                  </Button>
                </div>
              ) : (
                <Text as="p" tone="subdued" variant="bodySm">
                  Nothing to fix.
                </Text>
              )}
            </Stat>
            <Stat label="Customers connected" value={String(home.customersConnected)}>
              <div>
                <Button url="/app/customers" variant="plain">
                  See customers
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
                  Imports and failures per day
                </Text>
                <ButtonGroup variant="segmented">
                  <Button pressed={range === 7} onClick={() => setRange(7)}>
                    7 days
                  </Button>
                  <Button pressed={range === 30} onClick={() => setRange(30)}>
                    30 days
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
                  Past orders of newly connected customers
                </Text>
                {backfills.map((b) => (
                  <BlockStack gap="100" key={b.id}>
                    <InlineStack align="space-between" wrap>
                      <Text as="span">
                        {b.customer}: last {b.days} days, {b.total} orders found, {b.queued} queued, {b.imported}{" "}
                        imported
                      </Text>
                      <Badge tone={b.status === "done" ? "success" : b.status === "failed" ? "critical" : "info"}>
                        {b.status === "done" ? "Done" : b.status === "failed" ? "Failed" : "Running"}
                      </Badge>
                    </InlineStack>
                    <Text as="p" tone="subdued">
                      {b.path === "bulk" ? "Read through a Shopify bulk operation" : "Read page by page"}
                      {b.bulk
                        ? b.bulk.stage === "waiting"
                          ? ": waiting to start (other customers' backfills join it, or Shopify's limit of bulk operations is reached)"
                          : b.bulk.stage === "running"
                            ? `: Shopify is preparing the orders (${b.bulk.shopifyStatus === "CREATED" ? "created" : "running"}, ${b.bulk.objects} objects so far)`
                            : ": Shopify's file is being read and its orders queued"
                        : ""}
                    </Text>
                    <ProgressBar
                      progress={b.percent}
                      size="small"
                      tone={b.status === "failed" ? "critical" : "primary"}
                    />
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
          <Box paddingBlockEnd="400" />
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="Home" />;
}
