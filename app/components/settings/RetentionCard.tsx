// Settings → Data retention: how long stored Shopify data is kept (app/admin/settings/retention.server.ts).
import { Button, InlineStack, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { RetentionSaved } from "../../admin/settings/retention.server";
import { SmallFormCard } from "./SmallFormCard";
import { useI18n } from "../i18n";

export function RetentionCard({ days, saved }: { days: number; saved?: RetentionSaved }) {
  const result = saved?.result;
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
        error={result && !result.ok ? t("settings.retention.invalid", saved.bounds) : undefined}
        helpText={t("settings.retention.help")}
      />
      {result?.ok && (
        <Text as="p" tone="success">
          {t("settings.retention.saved", { count: result.days })}
        </Text>
      )}
      <InlineStack>
        <Button submit>{t("settings.retention.save")}</Button>
      </InlineStack>
    </SmallFormCard>
  );
}
