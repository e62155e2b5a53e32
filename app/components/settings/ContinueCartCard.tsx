// Settings → Continue cart: the storefront button's switch and the claim link's lifetime
// (app/admin/settings/continue-cart.server.ts).
import { Form } from "@remix-run/react";
import { BlockStack, Button, Card, Checkbox, FormLayout, Text, TextField } from "@shopify/polaris";
import { useState } from "react";
import type { HandoffSettingsView } from "../../admin/settings/continue-cart.server";
import { useI18n } from "../i18n";

export function ContinueCartCard(props: {
  saved: HandoffSettingsView;
  errors: Partial<Record<keyof HandoffSettingsView, string>>;
  busy: boolean;
}) {
  const [enabled, setEnabled] = useState(props.saved.cartButtonEnabled);
  const [expiry, setExpiry] = useState(String(props.saved.handoffExpirySeconds));
  const { t } = useI18n();
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          {t("settings.cart.title")}
        </Text>
        <Form method="post" action="/app/settings">
          <input type="hidden" name="intent" value="handoff" />
          <FormLayout>
            <Checkbox
              label={t("settings.cart.enabled")}
              name="cartButtonEnabled"
              value="on"
              checked={enabled}
              onChange={setEnabled}
            />
            <TextField
              label={t("settings.cart.expiry")}
              name="handoffExpirySeconds"
              type="number"
              autoComplete="off"
              value={expiry}
              onChange={setExpiry}
              error={props.errors.handoffExpirySeconds ? t("settings.cart.expiryInvalid") : undefined}
              helpText={t("settings.cart.expiryHelp")}
            />
            <Button submit loading={props.busy}>
              {t("settings.save")}
            </Button>
          </FormLayout>
        </Form>
      </BlockStack>
    </Card>
  );
}
