// Settings → Shopify Flow: one switch for the "Order import needs attention" trigger (app/admin/settings/flow.server.ts).
import { Button, Checkbox, InlineStack, Text } from "@shopify/polaris";
import { useState } from "react";
import { SmallFormCard } from "./SmallFormCard";
import { useI18n } from "../i18n";

export function FlowCard(props: { enabled: boolean; saved: boolean }) {
  const [enabled, setEnabled] = useState(props.enabled);
  const { t } = useI18n();
  return (
    <SmallFormCard title={t("settings.flow.title")} intent="flow">
      <Checkbox
        label={t("settings.flow.enabled")}
        name="flowTriggerEnabled"
        value="on"
        checked={enabled}
        onChange={setEnabled}
        helpText={t("settings.flow.help")}
      />
      {props.saved && (
        <Text as="p" tone="success">
          {t(props.enabled ? "settings.flow.on" : "settings.flow.off")}
        </Text>
      )}
      <InlineStack>
        <Button submit>{t("settings.save")}</Button>
      </InlineStack>
    </SmallFormCard>
  );
}
