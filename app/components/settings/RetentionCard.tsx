// Settings → Data retention: how long stored Shopify data is kept (app/admin/settings/retention.server.ts).
import { Button, InlineStack, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { RetentionResult } from "../../admin/settings/retention.server";
import { SmallFormCard } from "./SmallFormCard";

export function RetentionCard({ days, result }: { days: number; result?: RetentionResult }) {
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
      {result?.ok && (
        <Text as="p" tone="success">
          {result.message}
        </Text>
      )}
      <InlineStack>
        <Button submit>Save retention</Button>
      </InlineStack>
    </SmallFormCard>
  );
}
