// Settings → Continue cart: the storefront button's switch and the claim link's lifetime
// (app/admin/settings/continue-cart.server.ts).
import { Form } from "@remix-run/react";
import { BlockStack, Button, Card, Checkbox, FormLayout, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { HandoffSettingsView } from "../../admin/settings/continue-cart.server";

export function ContinueCartCard(props: {
  saved: HandoffSettingsView;
  errors: Partial<Record<keyof HandoffSettingsView, string>>;
  busy: boolean;
}) {
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
            <Checkbox
              label="The storefront's Continue cart button is on"
              name="cartButtonEnabled"
              value="on"
              checked={enabled}
              onChange={setEnabled}
            />
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
