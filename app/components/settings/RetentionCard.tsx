// Settings → Data retention: how long stored Shopify data is kept (app/admin/settings/retention.server.ts).
import { Button, InlineStack, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { RetentionResult } from "../../admin/settings/retention.server";
import { SmallFormCard } from "./SmallFormCard";
import { useI18n } from "../i18n";

export function RetentionCard({ days, result }: { days: number; result?: RetentionResult }) {
  const [value, setValue] = useState(String(days));
  const { t } = useI18n();
  return (
    <SmallFormCard title={t("settings.retention.title")} intent="retention">
      <TextField
        label={t("settings.retention.days")}
        name="retentionDays"
        type="number"
        value={value}
        onChange={setValue}
        autoComplete="off"
        error={result && !result.ok ? result.message : undefined}
        helpText={t("settings.retention.help")}
      />
      {result?.ok && (
        <Text as="p" tone="success">
          {result.message}
        </Text>
      )}
      <InlineStack>
        <Button submit>{t("settings.retention.save")}</Button>
      </InlineStack>
    </SmallFormCard>
  );
}
