// Settings: the service credentials (write-only secrets, check connection), Continue cart and data retention, each
// its own form. Over 300 lines because of three cards of Polaris markup; the logic is in app/connections/,
// app/handoff/settings.server.ts and app/privacy/retention.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { formatUtc } from "../lib/dates";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, Checkbox, FormLayout, InlineStack, Layout, List, Page, Select, Text, TextField } from "@shopify/polaris";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { SaveBar, TitleBar } from "@shopify/app-bridge-react";
import { appBridge } from "../components/app-bridge";
import prisma from "../db.server";
import { readForm } from "../lib/form.server";
import { authenticate } from "../shopify.server";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import {
  checkServiceConnection,
  getSettingsView,
  saveSettings,
  CONFIRM_ORIGIN_FIELD,
  SETTINGS_FIELDS,
  type CheckReport,
  type FieldErrors,
  type SecretStatus,
  type SettingsView,
} from "../connections/settings.server";
import { onSettingsSaved } from "../sync/on-settings-saved.server";
import { recordConnectionCheck } from "../admin/home.server";
import { getHandoffSettingsView, saveHandoffSettings, type HandoffSettingsView } from "../handoff/settings.server";
import { getRetentionDays, saveRetentionDays, type RetentionResult } from "../privacy/retention.server";
import { getFlowTriggerEnabled, saveFlowTriggerEnabled } from "../sync/flow-trigger.server";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = () => pageTitle("Settings");

// Thin route: authenticate, hand the form to app/connections/settings.server.ts, render. The loader and action
// return only the browser-safe view: secrets are write-only and never leave the server.

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const [settings, handoff, retentionDays, flowTriggerEnabled] = await Promise.all([
    getSettingsView(prisma, session.shop),
    getHandoffSettingsView(prisma, session.shop),
    getRetentionDays(prisma, session.shop),
    getFlowTriggerEnabled(prisma, session.shop),
  ]);
  return { settings, handoff, retentionDays, flowTriggerEnabled };
};

type ActionData =
  | { intent: "save"; ok: true; settings: SettingsView; changedSecrets: string[] }
  | { intent: "save"; ok: false; fieldErrors: FieldErrors; values: Partial<SettingsView>; originChange?: { grants: number; message: string } }
  | { intent: "check"; check: CheckReport }
  | { intent: "handoff"; ok: true; handoff: HandoffSettingsView }
  | { intent: "handoff"; ok: false; fieldErrors: Partial<Record<keyof HandoffSettingsView, string>> }
  | { intent: "retention"; result: RetentionResult }
  | { intent: "flow"; enabled: boolean }
  | { intent: "unknown"; error: string };

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await readForm(request);
  const intent = form.get("intent");
  if (intent === "check") {
    const check = await checkServiceConnection(prisma, session.shop);
    await recordConnectionCheck(prisma, session.shop, check);
    return data<ActionData>({ intent: "check", check });
  }
  if (intent === "retention") {
    const result = await saveRetentionDays(prisma, session.shop, form.get("retentionDays"));
    return data<ActionData>({ intent: "retention", result }, { status: result.ok ? 200 : 422 });
  }
  if (intent === "flow") {
    return data<ActionData>({ intent: "flow", enabled: await saveFlowTriggerEnabled(prisma, session.shop, form.get("flowTriggerEnabled")) });
  }
  if (intent === "save") {
    const input = Object.fromEntries([...SETTINGS_FIELDS, CONFIRM_ORIGIN_FIELD].map((f) => [f, form.get(f) ?? undefined]));
    const result = await saveSettings(prisma, session.shop, input);
    if (result.ok) await onSettingsSaved(prisma, session.shop);
    return result.ok
      ? data<ActionData>({ intent: "save", ok: true, settings: result.view, changedSecrets: result.changedSecrets })
      : data<ActionData>(
          { intent: "save", ok: false, fieldErrors: result.fieldErrors, values: result.values, originChange: result.originChange },
          { status: 422 },
        );
  }
  if (intent === "handoff") {
    const result = await saveHandoffSettings(prisma, session.shop, {
      cartButtonEnabled: form.get("cartButtonEnabled") ?? undefined,
      handoffExpirySeconds: form.get("handoffExpirySeconds") ?? undefined,
    });
    return result.ok
      ? data<ActionData>({ intent: "handoff", ok: true, handoff: result.view })
      : data<ActionData>({ intent: "handoff", ok: false, fieldErrors: result.fieldErrors }, { status: 422 });
  }
  return data<ActionData>({ intent: "unknown", error: 'Unknown action: use intent "save", "check", "handoff", "retention" or "flow".' }, { status: 400 });
};

// `urls`: the addresses the secret is tied to; changing one needs the secret typed again.
function secretHelp(status: SecretStatus, urls: string) {
  return status.set
    ? `Set, changed on ${status.changedAt ? formatUtc(status.changedAt) : "an unknown date"}. Leave empty to keep it (unless you change the ${urls}); type a new one to replace it.`
    : "Not set yet.";
}

export default function Settings() {
  const { settings: loaded, handoff, retentionDays, flowTriggerEnabled } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busyIntent = navigation.state !== "idle" ? navigation.formData?.get("intent") : undefined;

  const saved = actionData?.intent === "save" && actionData.ok ? actionData.settings : undefined;
  const settings = saved ?? loaded;
  const fieldErrors: FieldErrors = actionData?.intent === "save" && !actionData.ok ? actionData.fieldErrors : {};
  // The save would move connected customers' service: shown, and the next save confirms it.
  const originChange = actionData?.intent === "save" && !actionData.ok ? actionData.originChange : undefined;

  const [values, setValues] = useState({
    environment: settings.environment as string,
    baseUrl: settings.baseUrl,
    sandboxBaseUrl: settings.sandboxBaseUrl,
    authUrl: settings.authUrl,
    clientId: settings.clientId,
    clientSecret: "",
    signingSecret: "",
  });
  // After a successful save the secret fields empty again: what was typed is stored, never shown back.
  useEffect(() => {
    if (saved) setValues((v) => ({ ...v, clientSecret: "", signingSecret: "" }));
  }, [saved]);
  // App Bridge's save bar while the service settings differ from what is saved (inside Shopify's admin only: it
  // needs App Bridge; elsewhere the form's own Save button is all there is). Results come back as toasts there too.
  const formRef = useRef<HTMLFormElement>(null);
  const [bridged, setBridged] = useState(false);
  useEffect(() => setBridged(appBridge() !== null), []);
  const savedValues = { environment: settings.environment as string, baseUrl: settings.baseUrl, sandboxBaseUrl: settings.sandboxBaseUrl, authUrl: settings.authUrl, clientId: settings.clientId };
  const dirty =
    (Object.keys(savedValues) as (keyof typeof savedValues)[]).some((k) => values[k] !== savedValues[k]) || values.clientSecret !== "" || values.signingSecret !== "";
  const discard = () => setValues({ ...savedValues, clientSecret: "", signingSecret: "" });
  useEffect(() => {
    if (!actionData) return;
    const toast = appBridge()?.toast;
    if (actionData.intent === "save") toast?.show(actionData.ok ? "Settings saved" : "The settings were not saved", { isError: !actionData.ok });
    if (actionData.intent === "check") toast?.show(actionData.check.ok ? "Connection ok" : "Connection check failed", { isError: !actionData.check.ok });
  }, [actionData]);
  const field = (name: keyof typeof values) => ({
    name,
    value: values[name],
    onChange: (value: string) => setValues((v) => ({ ...v, [name]: value })),
    error: fieldErrors[name],
    autoComplete: "off",
  });

  return (
    <Page title="Settings" subtitle="Merchant Integration Service credentials">
      <TitleBar title="Settings" />
      {bridged ? (
        <SaveBar id="settings-save-bar" open={dirty}>
          <button variant="primary" onClick={() => formRef.current?.requestSubmit()}></button>
          <button onClick={discard}></button>
        </SaveBar>
      ) : null}
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            {saved && (
              <Banner tone="success" title="Settings saved">
                {actionData?.intent === "save" && actionData.ok && actionData.changedSecrets.length > 0 && (
                  <p>The new secret is used from the next request on.</p>
                )}
              </Banner>
            )}
            {originChange && (
              <Banner tone="warning" title="Customers will have to reconnect">
                <p>{originChange.message}</p>
              </Banner>
            )}
            {Object.keys(fieldErrors).length > 0 && (
              <Banner tone="critical" title="The settings were not saved">
                <p>Correct the highlighted fields.</p>
              </Banner>
            )}
            {actionData?.intent === "check" && (
              <Banner tone={actionData.check.ok ? "success" : "critical"} title={actionData.check.ok ? "Connection ok" : "Connection check failed"}>
                <List>
                  {actionData.check.lines.length === 0 && <List.Item>{actionData.check.message}</List.Item>}
                  {actionData.check.lines.map((line) => (
                    <List.Item key={line.name}>{line.message}</List.Item>
                  ))}
                </List>
              </Banner>
            )}
            <Card>
              {/* noValidate: the server (zod) decides, so the same inline messages appear for every client. */}
              {/* An explicit action: the default repeats the page's query, which holds the session token (id_token). */}
              <Form method="post" action="/app/settings" data-testid="settings-form" noValidate ref={formRef}>
                <input type="hidden" name="intent" value="save" />
                {/* CONFIRM_ORIGIN_FIELD, spelled out: settings.server is server-only. */}
                {originChange && <input type="hidden" name="confirmOriginChange" value="true" />}
                <FormLayout>
                  <Select
                    label="Environment"
                    name="environment"
                    options={[
                      { label: "Sandbox", value: "sandbox" },
                      { label: "Production", value: "production" },
                    ]}
                    value={values.environment}
                    onChange={(value) => setValues((v) => ({ ...v, environment: value }))}
                    error={fieldErrors.environment}
                  />
                  <TextField label="Base URL" type="url" placeholder="https://api.example.com" {...field("baseUrl")} />
                  <TextField label="Sandbox base URL" type="url" placeholder="https://sandbox.example.com" {...field("sandboxBaseUrl")} />
                  <TextField label="Auth URL" type="url" placeholder="https://auth.example.com" {...field("authUrl")} />
                  <TextField label="Client ID" {...field("clientId")} />
                  <TextField
                    label="Client secret"
                    type="password"
                    helpText={secretHelp(settings.clientSecret, "Auth URL")}
                    {...field("clientSecret")}
                    autoComplete="new-password"
                  />
                  <TextField
                    label="Signing secret"
                    type="password"
                    helpText={secretHelp(settings.signingSecret, "base URLs")}
                    {...field("signingSecret")}
                    autoComplete="new-password"
                  />
                  <InlineStack gap="200">
                    <Button submit variant="primary" tone={originChange ? "critical" : undefined} loading={busyIntent === "save"}>
                      {originChange ? "Save, customers reconnect" : "Save"}
                    </Button>
                  </InlineStack>
                </FormLayout>
              </Form>
            </Card>
          </BlockStack>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <Card>
            <BlockStack gap="200">
              <Text as="h2" variant="headingMd">
                Check connection
              </Text>
              <Text as="p" tone="subdued">
                Sends a signed sandbox cart handoff that expires in a minute and asks the auth server to recognise the
                client. Nothing is created that a customer could see.
              </Text>
              <Form method="post" action="/app/settings">
                <input type="hidden" name="intent" value="check" />
                <Button submit loading={busyIntent === "check"} disabled={!settings.configured}>
                  Check connection
                </Button>
              </Form>
              {!settings.configured && (
                <Text as="p" tone="subdued">
                  Save all fields and both secrets first.
                </Text>
              )}
            </BlockStack>
          </Card>
          <ContinueCartCard
            saved={actionData?.intent === "handoff" && actionData.ok ? actionData.handoff : handoff}
            errors={actionData?.intent === "handoff" && !actionData.ok ? actionData.fieldErrors : {}}
            busy={busyIntent === "handoff"}
          />
          <FlowCard enabled={actionData?.intent === "flow" ? actionData.enabled : flowTriggerEnabled} saved={actionData?.intent === "flow"} />
          <RetentionCard days={actionData?.intent === "retention" && actionData.result.ok ? actionData.result.days : retentionDays} result={actionData?.intent === "retention" ? actionData.result : undefined} />
        </Layout.Section>
      </Layout>
    </Page>
  );
}

// A card with its own small form (one `intent`), so it saves without the service secrets.
function SmallFormCard({ title, intent, children }: { title: string; intent: string; children: ReactNode }) {
  return (
    <div style={{ marginTop: "var(--p-space-400)" }}>
      <Card>
        <Form method="post" action="/app/settings">
          <BlockStack gap="200">
            <Text as="h2" variant="headingMd">
              {title}
            </Text>
            <input type="hidden" name="intent" value={intent} />
            {children}
          </BlockStack>
        </Form>
      </Card>
    </div>
  );
}

// How long stored Shopify data is kept (app/privacy/retention.server.ts).
function RetentionCard({ days, result }: { days: number; result?: RetentionResult }) {
  const [value, setValue] = useState(String(days));
  return (
    <SmallFormCard title="Data retention" intent="retention">
      <TextField
        label="Keep stored order data for (days)"
        name="retentionDays"
        type="number"
        value={value}
        onChange={setValue}
        autoComplete="off"
        error={result && !result.ok ? result.message : undefined}
        helpText="Order and fulfillment data from Shopify, attempt logs and finished jobs are deleted after this many days. Imports that never reached the service keep their state, and say that their data was deleted."
      />
      {result?.ok && <Text as="p" tone="success">{result.message}</Text>}
      <InlineStack>
        <Button submit>Save retention</Button>
      </InlineStack>
    </SmallFormCard>
  );
}

// Shopify Flow's "Order import needs attention" trigger (app/sync/flow-trigger.server.ts): one switch.
function FlowCard(props: { enabled: boolean; saved: boolean }) {
  const [enabled, setEnabled] = useState(props.enabled);
  return (
    <SmallFormCard title="Shopify Flow" intent="flow">
      <Checkbox
        label="Send failed imports to Shopify Flow"
        name="flowTriggerEnabled"
        value="on"
        checked={enabled}
        onChange={setEnabled}
        helpText='Starts your workflows that begin with "Order import needs attention", once per failure: the order, its customer, and why. No contact details are sent.'
      />
      {props.saved && <Text as="p" tone="success">{props.enabled ? "Failed imports are sent to Shopify Flow." : "Nothing is sent to Shopify Flow."}</Text>}
      <InlineStack>
        <Button submit>Save</Button>
      </InlineStack>
    </SmallFormCard>
  );
}

function ContinueCartCard(props: { saved: HandoffSettingsView; errors: Partial<Record<keyof HandoffSettingsView, string>>; busy: boolean }) {
  const [enabled, setEnabled] = useState(props.saved.cartButtonEnabled);
  const [expiry, setExpiry] = useState(String(props.saved.handoffExpirySeconds));
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          Continue cart
        </Text>
        <Form method="post" action="/app/settings">
          <input type="hidden" name="intent" value="handoff" />
          <FormLayout>
            <Checkbox label="The storefront's Continue cart button is on" name="cartButtonEnabled" value="on" checked={enabled} onChange={setEnabled} />
            <TextField
              label="Claim link lifetime (seconds)"
              name="handoffExpirySeconds"
              type="number"
              autoComplete="off"
              value={expiry}
              onChange={setExpiry}
              error={props.errors.handoffExpirySeconds}
              helpText="From 60 seconds to 7 days (604800). 1800 is 30 minutes."
            />
            <Button submit loading={props.busy}>
              Save
            </Button>
          </FormLayout>
        </Form>
      </BlockStack>
    </Card>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="Settings" />;
}
