// Home: the shop's sync health at a glance, imports and failures per day, backfill progress, and the setup guide
// until setup is done. Logic: app/admin/home.server.ts. Refreshes itself while work is running.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { Badge, BlockStack, Box, Button, ButtonGroup, Card, InlineGrid, InlineStack, Layout, Page, ProgressBar, Text } from "@shopify/polaris";
import { useState } from "react";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { accountSurfaceOf, loadHome, type AccountSurface } from "../admin/home.server";
import { customerAccountsOf } from "../connections/customer-account.server";
import { adminGraphqlOf } from "../lib/admin-api.server";
import { loadBackfills } from "../admin/backfills.server";
import { DayChart } from "../components/DayChart";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { useLiveRevalidation } from "../components/useLiveRevalidation";
import { utc } from "../components/sync-labels";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  const [home, backfills] = await Promise.all([loadHome(prisma, session.shop), loadBackfills(prisma, session.shop)]);
  // Which customer accounts the store has decides where "Connect workspace" goes; asked only while that step is open.
  const themeStepOpen = home.setup.some((s) => s.id === "theme" && !s.done);
  const accounts = themeStepOpen ? await customerAccountsOf(session.shop, adminGraphqlOf(admin)) : { version: null };
  const surface = accountSurfaceOf(accounts.version);
  return { shop: session.shop, home, backfills, surface, busy: home.busy || backfills.some((b) => b.status === "running") };
};

const age = (seconds: number) =>
  seconds < 90 ? `${seconds} s` : seconds < 5400 ? `${Math.round(seconds / 60)} min` : seconds < 172_800 ? `${Math.round(seconds / 3600)} h` : `${Math.round(seconds / 86_400)} days`;

// The "Connect workspace" step as it fits the store's customer accounts (README, "Connect workspace").
const THEME_STEP: Record<AccountSurface, Partial<(typeof STEPS)[string]>> = {
  customer_accounts: {
    title: "Add the Workspace blocks to customer accounts",
    help: "Your store uses customer accounts: in the checkout and accounts editor, add the app’s Workspace block to the Profile page and to Order status, where shoppers connect their workspace. Add “Continue cart” to the cart in the theme editor. Done once a customer has connected.",
    action: "Open checkout and accounts editor",
    url: (handle) => `https://admin.shopify.com/store/${handle}/settings/checkout/editor`,
  },
  legacy_accounts: {
    help: "Your store uses legacy customer accounts: add the “Connect workspace” block to the customer account page in the theme editor, and “Continue cart” to the cart. Done once a customer has connected.",
  },
  unknown: {},
};

const STEPS: Record<string, { title: string; help: string; action: string; url: (handle: string) => string; external?: boolean }> = {
  settings: { title: "Enter the service settings", help: "Client ID, secrets and addresses of the Merchant Integration Service.", action: "Open settings", url: () => "/app/settings" },
  check: { title: "Check the connection", help: "Settings → Check connection: the service accepts your credentials.", action: "Check connection", url: () => "/app/settings" },
  theme: {
    title: "Add the theme blocks",
    help: "Add the “Connect workspace” block to the customer account page (legacy customer accounts) or any page, and “Continue cart” to the cart. Done once a customer has connected.",
    action: "Open theme editor",
    url: (handle) => `https://admin.shopify.com/store/${handle}/themes/current/editor`,
    external: true,
  },
  import: { title: "See the first import", help: "The next order of a connected customer shows up in the sync log.", action: "Open sync log", url: () => "/app/log" },
};

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
  const { shop, home, backfills, busy, surface } = useLoaderData<typeof loader>();
  useLiveRevalidation(busy);
  const [range, setRange] = useState<7 | 30>(7);
  const handle = shop.replace(/\.myshopify\.com$/, "");
  const remaining = home.setup.filter((s) => !s.done);
  const check = home.settings.lastCheck;
  return (
    <Page title="Home" subtitle={`Orders and shipments of ${shop} sent to the Merchant Integration Service`}>
      <Layout>
        {remaining.length > 0 ? (
          <Layout.Section>
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  Setup guide: {home.setup.length - remaining.length} of {home.setup.length} done
                </Text>
                <ProgressBar progress={(100 * (home.setup.length - remaining.length)) / home.setup.length} size="small" />
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
                      </BlockStack>
                      {step.done ? null : (
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
                {check ? <Badge tone={check.ok ? "success" : "critical"}>{check.ok ? "Connection ok" : "Check failed"}</Badge> : null}
              </InlineStack>
              <Text as="p" tone="subdued" variant="bodySm">
                {check ? `Last checked ${utc(check.at)}${check.ok ? "" : `: ${check.message}`}` : "Connection not checked yet."}
              </Text>
            </Stat>
            <Stat label="Worker" value={home.worker.alive ? "Running" : "Not running"}>
              <Text as="p" tone={home.worker.alive ? "subdued" : "critical"} variant="bodySm">
                {home.worker.alive
                  ? `${home.backlog} waiting or running`
                  : `No worker has reported ${home.worker.lastBeatAt ? `since ${utc(home.worker.lastBeatAt)}` : "yet"}; ${home.backlog} imports wait.`}
              </Text>
              <Text as="p" tone="subdued" variant="bodySm">
                {home.oldestWaitingSeconds === null ? "Nothing is waiting." : `Oldest waiting: ${age(home.oldestWaitingSeconds)}`}
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
          <Box paddingBlockEnd="400" />
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="Home" />;
}
