// Home: the shop's sync health at a glance, imports and failures per day, backfill progress, and the setup guide
// until setup is done. Logic: app/admin/home.server.ts; cards: app/components/home/. Refreshes itself while work is
// running.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { Box, Layout, Page } from "@shopify/polaris";
import { TitleBar } from "@shopify/app-bridge-react";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { loadHomePage } from "../admin/home.server";
import { adminGraphqlOf } from "../shopify/admin-api.server";
import { env } from "../env.server";
import { ActivityChartCard } from "../components/home/ActivityChartCard";
import { BackfillsCard } from "../components/home/BackfillsCard";
import { HealthStats } from "../components/home/HealthStats";
import { SetupGuideCard } from "../components/home/SetupGuideCard";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { useLiveRevalidation } from "../components/useLiveRevalidation";
import { useI18n } from "../components/i18n";
import { titleOf } from "../i18n/locale";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "home.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session, admin } = await authenticate.admin(request);
  return loadHomePage(prisma, session.shop, adminGraphqlOf(admin), env().SHOPIFY_API_KEY);
};

export default function Home() {
  const { shop, home, backfills, embed, links, surface, busy } = useLoaderData<typeof loader>();
  const { t } = useI18n();
  useLiveRevalidation(busy);
  return (
    <Page title={t("home.title")} subtitle={t("home.subtitle", { shop })}>
      <TitleBar title={t("home.title")} />
      <Layout>
        {home.setup.some((s) => !s.done) ? (
          <Layout.Section>
            <SetupGuideCard shop={shop} setup={home.setup} surface={surface} embed={embed} links={links} />
          </Layout.Section>
        ) : null}
        <Layout.Section>
          <HealthStats home={home} />
        </Layout.Section>
        <Layout.Section>
          <ActivityChartCard days={home.days} />
        </Layout.Section>
        {backfills.length > 0 ? (
          <Layout.Section>
            <BackfillsCard backfills={backfills} />
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
