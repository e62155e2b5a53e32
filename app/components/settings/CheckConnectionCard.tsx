// Settings → Check connection: the button (app/admin/settings/check.server.ts) and the banner with its result,
// which the page shows above the service settings.
import { Form } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, List, Text } from "@shopify/polaris";
import type { CheckReport } from "../../admin/settings/check.server";
import { useI18n } from "../i18n";
import { checkWords } from "../../admin/check-words";

export function CheckConnectionCard({ configured, busy }: { configured: boolean; busy: boolean }) {
  const { t } = useI18n();
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          {t("home.setup.check.action")}
        </Text>
        <Text as="p" tone="subdued">
          {t("settings.check.help")}
        </Text>
        <Form method="post" action="/app/settings">
          <input type="hidden" name="intent" value="check" />
          <Button submit loading={busy} disabled={!configured}>
            {t("home.setup.check.action")}
          </Button>
        </Form>
        {!configured && (
          <Text as="p" tone="subdued">
            {t("settings.check.saveFirst")}
          </Text>
        )}
      </BlockStack>
    </Card>
  );
}

export function CheckResultBanner({ check }: { check: CheckReport }) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <Banner tone={check.ok ? "success" : "critical"} title={t(check.ok ? "home.check.ok" : "settings.check.failed")}>
      <List>
        {check.lines.length === 0 && <List.Item>{checkWords(i18n, check)}</List.Item>}
        {check.lines.map((line) => (
          <List.Item key={line.name}>{checkWords(i18n, line)}</List.Item>
        ))}
      </List>
    </Banner>
  );
}
