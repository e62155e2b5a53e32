// Settings → Shopify Flow: one switch for the "Order import needs attention" trigger (app/admin/settings/flow.server.ts).
import { Button, Checkbox, InlineStack, Text } from "@shopify/polaris";
import { useState } from "react";
import { SmallFormCard } from "./SmallFormCard";

export function FlowCard(props: { enabled: boolean; saved: boolean }) {
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
      {props.saved && (
        <Text as="p" tone="success">
          {props.enabled ? "Failed imports are sent to Shopify Flow." : "Nothing is sent to Shopify Flow."}
        </Text>
      )}
      <InlineStack>
        <Button submit>Save</Button>
      </InlineStack>
    </SmallFormCard>
  );
}
