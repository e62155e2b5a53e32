// Settings: five cards, each its own form and `intent`: the service (save), Check connection (check), Continue cart
// (handoff), Shopify Flow (flow) and Data retention (retention). The route authenticates, loads and dispatches;
// each intent's handling is in app/admin/settings/, each card in app/components/settings/. The loader and action
// return only browser-safe views: secrets are write-only and never leave the server.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Layout, Page } from "@shopify/polaris";
import { useEffect } from "react";
import { TitleBar } from "@shopify/app-bridge-react";
import { checkConnectionCard, type ConnectionChecked } from "../admin/settings/check.server";
import {
  loadContinueCartCard,
  saveContinueCartCard,
  type ContinueCartSaved,
} from "../admin/settings/continue-cart.server";
import { loadFlowCard, saveFlowCard, type FlowSaved } from "../admin/settings/flow.server";
import { loadRetentionCard, saveRetentionCard, type RetentionSaved } from "../admin/settings/retention.server";
import { loadServiceCard, saveServiceCard, type ServiceSaved } from "../admin/settings/service.server";
import { appBridge } from "../components/app-bridge";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { CheckConnectionCard, CheckResultBanner } from "../components/settings/CheckConnectionCard";
import { ContinueCartCard } from "../components/settings/ContinueCartCard";
import { FlowCard } from "../components/settings/FlowCard";
import { RetentionCard } from "../components/settings/RetentionCard";
import { ServiceSettingsCard } from "../components/settings/ServiceSettingsCard";
import prisma from "../db.server";
import { readForm } from "../lib/form.server";
import { pageTitle } from "../lib/page-title";
import { useI18n } from "../components/i18n";
import { requestLocale } from "../i18n/request.server";
import { translator } from "../i18n/translate";
import { titleOf } from "../i18n/locale";
import { authenticate } from "../shopify.server";

export const meta: MetaFunction = ({ matches }) => pageTitle(titleOf(matches, "settings.title"));

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const [settings, handoff, retentionDays, flowTriggerEnabled] = await Promise.all([
    loadServiceCard(prisma, session.shop),
    loadContinueCartCard(prisma, session.shop),
    loadRetentionCard(prisma, session.shop),
    loadFlowCard(prisma, session.shop),
  ]);
  return { settings, handoff, retentionDays, flowTriggerEnabled };
};

type ActionData =
  | ServiceSaved
  | ConnectionChecked
  | ContinueCartSaved
  | RetentionSaved
  | FlowSaved
  | { intent: "unknown"; error: string };

const intents = new Map<string, (shop: string, form: FormData) => Promise<{ data: ActionData; status: number }>>([
  ["save", (shop, form) => saveServiceCard(prisma, shop, form)],
  ["check", (shop) => checkConnectionCard(prisma, shop)],
  ["handoff", (shop, form) => saveContinueCartCard(prisma, shop, form)],
  ["retention", (shop, form) => saveRetentionCard(prisma, shop, form)],
  ["flow", (shop, form) => saveFlowCard(prisma, shop, form)],
]);

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await readForm(request);
  const run = intents.get(String(form.get("intent")));
  if (!run)
    return data<ActionData>(
      { intent: "unknown", error: translator(requestLocale(request, session)).t("settings.unknownAction") },
      { status: 400 },
    );
  const answer = await run(session.shop, form);
  return data<ActionData>(answer.data, { status: answer.status });
};

export default function Settings() {
  const { settings: loaded, handoff, retentionDays, flowTriggerEnabled } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busyIntent = navigation.state !== "idle" ? navigation.formData?.get("intent") : undefined;
  const settings = actionData?.intent === "save" && actionData.ok ? actionData.settings : loaded;
  const { t } = useI18n();

  // Inside Shopify's admin (App Bridge), the service card's results come back as toasts too.
  useEffect(() => {
    if (!actionData) return;
    const toast = appBridge()?.toast;
    if (actionData.intent === "save")
      toast?.show(t(actionData.ok ? "settings.saved" : "settings.notSaved"), { isError: !actionData.ok });
    if (actionData.intent === "check")
      toast?.show(t(actionData.check.ok ? "home.check.ok" : "settings.check.failed"), {
        isError: !actionData.check.ok,
      });
  }, [actionData, t]);

  return (
    <Page title={t("settings.title")} subtitle={t("settings.subtitle")}>
      <TitleBar title={t("settings.title")} />
      <Layout>
        <Layout.Section>
          <ServiceSettingsCard
            settings={settings}
            answer={actionData?.intent === "save" ? actionData : undefined}
            busy={busyIntent === "save"}
            notice={actionData?.intent === "check" ? <CheckResultBanner check={actionData.check} /> : null}
          />
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <CheckConnectionCard configured={settings.configured} busy={busyIntent === "check"} />
          <ContinueCartCard
            saved={actionData?.intent === "handoff" && actionData.ok ? actionData.handoff : handoff}
            errors={actionData?.intent === "handoff" && !actionData.ok ? actionData.fieldErrors : {}}
            busy={busyIntent === "handoff"}
          />
          <FlowCard
            enabled={actionData?.intent === "flow" ? actionData.enabled : flowTriggerEnabled}
            saved={actionData?.intent === "flow"}
          />
          <RetentionCard
            days={actionData?.intent === "retention" && actionData.result.ok ? actionData.result.days : retentionDays}
            saved={actionData?.intent === "retention" ? actionData : undefined}
          />
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="settings.title" />;
}
