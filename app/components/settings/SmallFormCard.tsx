import { Form } from "@remix-run/react";
import { BlockStack, Card, Text } from "@shopify/polaris";
import type { ReactNode } from "react";

/** A Settings card with its own small form (one `intent`), so it saves without the service secrets. */
export function SmallFormCard({ title, intent, children }: { title: string; intent: string; children: ReactNode }) {
  return (
    <div style={{ marginTop: "var(--p-space-400)" }}>
      <Card>
        <Form method="post" action="/app/settings">
          <BlockStack gap="200">
            <Text as="h2" variant="headingMd">
              {title}
            </Text>
            <input type="hidden" name="intent" value={intent} />
            {children}
          </BlockStack>
        </Form>
      </Card>
    </div>
  );
}
