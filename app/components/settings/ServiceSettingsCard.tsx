// Settings → the service: addresses and credentials (app/admin/settings/service.server.ts), with the banners of
// the last save above the form. Secrets are write-only: the fields start empty, and empty keeps the stored one.
import { Form } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, FormLayout, InlineStack, Select, TextField } from "@shopify/polaris";
import { SaveBar } from "@shopify/app-bridge-react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import type { FieldErrors, SecretStatus, ServiceSaved, SettingsView } from "../../admin/settings/service.server";
import { formatUtc } from "../../lib/dates";
import { appBridge } from "../app-bridge";

// `urls`: the addresses the secret is tied to; changing one needs the secret typed again.
function secretHelp(status: SecretStatus, urls: string) {
  return status.set
    ? `Set, changed on ${status.changedAt ? formatUtc(status.changedAt) : "an unknown date"}. Leave empty to keep it (unless you change the ${urls}); type a new one to replace it.`
    : "Not set yet.";
}

/**
 * `settings`: the saved settings (the last save's, else the loader's); `answer`: the last save's outcome;
 * `notice`: a banner of another card's (Check connection) shown above the form.
 */
export function ServiceSettingsCard({
  settings,
  answer,
  busy,
  notice,
}: {
  settings: SettingsView;
  answer?: ServiceSaved;
  busy: boolean;
  notice?: ReactNode;
}) {
  const saved = answer?.ok ? answer.settings : undefined;
  const fieldErrors: FieldErrors = answer && !answer.ok ? answer.fieldErrors : {};
  // The save would move connected customers' service: shown, and the next save confirms it.
  const originChange = answer && !answer.ok ? answer.originChange : undefined;

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
  // needs App Bridge; elsewhere the form's own Save button is all there is).
  const formRef = useRef<HTMLFormElement>(null);
  const [bridged, setBridged] = useState(false);
  useEffect(() => setBridged(appBridge() !== null), []);
  const savedValues = {
    environment: settings.environment as string,
    baseUrl: settings.baseUrl,
    sandboxBaseUrl: settings.sandboxBaseUrl,
    authUrl: settings.authUrl,
    clientId: settings.clientId,
  };
  const dirty =
    (Object.keys(savedValues) as (keyof typeof savedValues)[]).some((k) => values[k] !== savedValues[k]) ||
    values.clientSecret !== "" ||
    values.signingSecret !== "";
  const discard = () => setValues({ ...savedValues, clientSecret: "", signingSecret: "" });
  const field = (name: keyof typeof values) => ({
    name,
    value: values[name],
    onChange: (value: string) => setValues((v) => ({ ...v, [name]: value })),
    error: fieldErrors[name],
    autoComplete: "off",
  });

  return (
    <>
      {bridged ? (
        <SaveBar id="settings-save-bar" open={dirty}>
          <button variant="primary" onClick={() => formRef.current?.requestSubmit()}></button>
          <button onClick={discard}></button>
        </SaveBar>
      ) : null}
      <BlockStack gap="400">
        {saved && (
          <Banner tone="success" title="Settings saved">
            {answer?.ok && answer.changedSecrets.length > 0 && <p>The new secret is used from the next request on.</p>}
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
        {notice}
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
              <TextField
                label="Sandbox base URL"
                type="url"
                placeholder="https://sandbox.example.com"
                {...field("sandboxBaseUrl")}
              />
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
                <Button submit variant="primary" tone={originChange ? "critical" : undefined} loading={busy}>
                  {originChange ? "Save, customers reconnect" : "Save"}
                </Button>
              </InlineStack>
            </FormLayout>
          </Form>
        </Card>
      </BlockStack>
    </>
  );
}
