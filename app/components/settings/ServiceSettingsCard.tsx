// Settings → the service: addresses and credentials (app/admin/settings/service.server.ts), with the banners of
// the last save above the form. Secrets are write-only: the fields start empty, and empty keeps the stored one.
import { Form } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, FormLayout, InlineStack, Select, TextField } from "@shopify/polaris";
import { SaveBar } from "@shopify/app-bridge-react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import type {
  FieldErrors,
  FieldProblems,
  SecretStatus,
  ServiceSaved,
  SettingsView,
} from "../../admin/settings/service.server";
import { appBridge } from "../app-bridge";
import { useI18n } from "../i18n";
import type { Translator } from "../../i18n/translate";

// `urls`: the addresses the secret is tied to; changing one needs the secret typed again.
function secretHelp({ t, dateTime }: Translator, status: SecretStatus, urls: string) {
  return status.set
    ? t("settings.secret.set", {
        at: status.changedAt ? dateTime(status.changedAt) : t("settings.secret.unknownDate"),
        urls,
      })
    : t("settings.secret.unset");
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
  const i18n = useI18n();
  const { t } = i18n;
  const problems: FieldProblems = answer && !answer.ok ? (answer.fieldProblems ?? {}) : {};
  // Each field's problem in the admin's language, from its code (the host concerned is data); in English, the
  // server's own words.
  const fieldErrors: FieldErrors =
    i18n.storedWordsFit && answer && !answer.ok
      ? answer.fieldErrors
      : Object.fromEntries(
          Object.entries(problems).map(([name, p]) => [
            name,
            t(`settings.error.${p.code}`, {
              field: t(`settings.${name as keyof FieldProblems}`),
              host: p.host ?? "",
              max: p.max ?? 0,
              changed: (p.changed ?? []).map((f) => t(`settings.${f}`)).join(" · "),
            }),
          ]),
        );
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
          {/* Empty: App Bridge labels them Save and Discard itself, in the admin's language. */}
          <button variant="primary" onClick={() => formRef.current?.requestSubmit()}></button>
          <button onClick={discard}></button>
        </SaveBar>
      ) : null}
      <BlockStack gap="400">
        {saved && (
          <Banner tone="success" title={t("settings.saved")}>
            {answer?.ok && answer.changedSecrets.length > 0 && <p>{t("settings.newSecret")}</p>}
          </Banner>
        )}
        {originChange && (
          <Banner tone="warning" title={t("settings.originChange")}>
            <p>{t("settings.originChangeBody", { count: originChange.grants })}</p>
          </Banner>
        )}
        {Object.keys(fieldErrors).length > 0 && (
          <Banner tone="critical" title={t("settings.notSaved")}>
            <p>{t("settings.correctFields")}</p>
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
                label={t("settings.environment")}
                name="environment"
                options={[
                  { label: t("common.sandbox"), value: "sandbox" },
                  { label: t("common.production"), value: "production" },
                ]}
                value={values.environment}
                onChange={(value) => setValues((v) => ({ ...v, environment: value }))}
                error={fieldErrors.environment}
              />
              <TextField
                label={t("settings.baseUrl")}
                type="url"
                placeholder="https://api.example.com"
                {...field("baseUrl")}
              />
              <TextField
                label={t("settings.sandboxBaseUrl")}
                type="url"
                placeholder="https://sandbox.example.com"
                {...field("sandboxBaseUrl")}
              />
              <TextField
                label={t("settings.authUrl")}
                type="url"
                placeholder="https://auth.example.com"
                {...field("authUrl")}
              />
              <TextField label={t("settings.clientId")} {...field("clientId")} />
              <TextField
                label={t("settings.clientSecret")}
                type="password"
                helpText={secretHelp(i18n, settings.clientSecret, t("settings.authUrl"))}
                {...field("clientSecret")}
                autoComplete="new-password"
              />
              <TextField
                label={t("settings.signingSecret")}
                type="password"
                helpText={secretHelp(i18n, settings.signingSecret, t("settings.baseUrls"))}
                {...field("signingSecret")}
                autoComplete="new-password"
              />
              <InlineStack gap="200">
                <Button submit variant="primary" tone={originChange ? "critical" : undefined} loading={busy}>
                  {t(originChange ? "settings.saveReconnect" : "settings.save")}
                </Button>
              </InlineStack>
            </FormLayout>
          </Form>
        </Card>
      </BlockStack>
    </>
  );
}
