// Settings → Check connection: the button (app/admin/settings/check.server.ts) and the banner with its result,
// which the page shows above the service settings.
import { Form } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, List, Text } from "@shopify/polaris";
import type { CheckReport } from "../../admin/settings/check.server";

export function CheckConnectionCard({ configured, busy }: { configured: boolean; busy: boolean }) {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          Check connection
        </Text>
        <Text as="p" tone="subdued">
          Sends a signed sandbox cart handoff that expires in a minute and asks the auth server to recognise the client.
          Nothing is created that a customer could see.
        </Text>
        <Form method="post" action="/app/settings">
          <input type="hidden" name="intent" value="check" />
          <Button submit loading={busy} disabled={!configured}>
            Check connection
          </Button>
        </Form>
        {!configured && (
          <Text as="p" tone="subdued">
            Save all fields and both secrets first.
          </Text>
        )}
      </BlockStack>
    </Card>
  );
}

export function CheckResultBanner({ check }: { check: CheckReport }) {
  return (
    <Banner tone={check.ok ? "success" : "critical"} title={check.ok ? "Connection ok" : "Connection check failed"}>
      <List>
        {check.lines.length === 0 && <List.Item>{check.message}</List.Item>}
        {check.lines.map((line) => (
          <List.Item key={line.name}>{line.message}</List.Item>
        ))}
      </List>
    </Banner>
  );
}
