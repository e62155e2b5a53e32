import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { adminCustomerLink } from "../lib/admin-links";
import { formatUtc } from "../lib/dates";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Page,
  Pagination,
  Text,
  TextField,
} from "@shopify/polaris";
import { useState } from "react";
import prisma from "../db.server";
import { readForm } from "../lib/form.server";
import { authenticate } from "../shopify.server";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { disconnectGrant, listGrants } from "../connections/grant-lifecycle.server";
import { loadServiceSettingsOrNull } from "../connections/settings.server";
import { pageTitle } from "../lib/page-title";

export const meta: MetaFunction = () => pageTitle("Customers");

// Thin route: every query is scoped by the session's shop inside app/connections/grant-lifecycle.server.ts.

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const url = new URL(request.url);
  const page = Number(url.searchParams.get("page") ?? "1");
  const grants = await listGrants(prisma, session.shop, {
    query: url.searchParams.get("q") ?? "",
    page: Number.isFinite(page) ? page : 1,
  });
  return { grants };
};

type ActionData = { ok: boolean; message: string };

export const action = async ({ request }: ActionFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const form = await readForm(request);
  const grantId = form.get("grantId");
  if (form.get("intent") !== "disconnect" || typeof grantId !== "string" || !grantId) {
    return data<ActionData>({ ok: false, message: 'Send intent "disconnect" with a grantId.' }, { status: 400 });
  }
  // Undecryptable settings (null): still deleted locally; the message says revoking failed.
  const settings = await loadServiceSettingsOrNull(prisma, session.shop);
  const result = await disconnectGrant(prisma, session.shop, grantId, { settings });
  return data<ActionData>({ ok: result.ok, message: result.message }, { status: result.ok ? 200 : result.status });
};

const formatDate = (iso: string | null) => (iso ? formatUtc(iso) : "Never");

export default function Customers() {
  const { grants } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [searchParams] = useSearchParams();
  const [query, setQuery] = useState(grants.query);
  const [confirming, setConfirming] = useState<string | null>(null);
  const busyGrant = navigation.state !== "idle" ? navigation.formData?.get("grantId") : undefined;

  // The admin loads the page with a Shopify session token in the URL (id_token): links and forms must not copy it.
  const pageLink = (page: number) => {
    const next = new URLSearchParams(searchParams);
    next.delete("id_token");
    next.set("page", String(page));
    if (grants.query) next.set("q", grants.query);
    return `?${next.toString()}`;
  };

  const rows = grants.items.map((g, index) => (
    <IndexTable.Row id={g.id} key={g.id} position={index}>
      <IndexTable.Cell>
        <BlockStack gap="050">
          <Text as="span" fontWeight="semibold">
            {g.displayName}
          </Text>
          <Text as="span" tone="subdued" variant="bodySm">
            <a href={adminCustomerLink(g.customerId)}>ID {g.customerId}</a>
          </Text>
        </BlockStack>
      </IndexTable.Cell>
      <IndexTable.Cell>{g.workspaceId}</IndexTable.Cell>
      <IndexTable.Cell>{g.scopes.join(", ")}</IndexTable.Cell>
      <IndexTable.Cell>{formatDate(g.connectedAt)}</IndexTable.Cell>
      <IndexTable.Cell>{formatDate(g.lastUsedAt)}</IndexTable.Cell>
      <IndexTable.Cell>
        {g.status === "active" ? (
          <Badge tone="success">Connected</Badge>
        ) : (
          <BlockStack gap="050">
            <span>
              <Badge tone="critical">Needs reconnect</Badge>
            </span>
            {g.statusReason && (
              <Text as="span" tone="subdued" variant="bodySm">
                {g.statusReason}
              </Text>
            )}
          </BlockStack>
        )}
      </IndexTable.Cell>
      <IndexTable.Cell>
        {/* Two steps: disconnecting revokes the customer's authorization at the service, which cannot be undone. */}
        {confirming === g.id ? (
          <Form method="post" action="/app/customers" onSubmit={() => setConfirming(null)}>
            <input type="hidden" name="intent" value="disconnect" />
            <input type="hidden" name="grantId" value={g.id} />
            <InlineStack gap="200" wrap={false}>
              <Button
                submit
                tone="critical"
                variant="primary"
                size="slim"
                accessibilityLabel={`Confirm disconnect: ${g.displayName}`}
              >
                Confirm disconnect
              </Button>
              <Button size="slim" onClick={() => setConfirming(null)}>
                Cancel
              </Button>
            </InlineStack>
          </Form>
        ) : (
          <Button
            tone="critical"
            variant="plain"
            loading={busyGrant === g.id}
            onClick={() => setConfirming(g.id)}
            accessibilityLabel={`Disconnect ${g.displayName}`}
          >
            Disconnect
          </Button>
        )}
      </IndexTable.Cell>
    </IndexTable.Row>
  ));

  return (
    <Page title="Customers" subtitle="Shoppers who connected a workspace">
      <BlockStack gap="400">
        {actionData && (
          <Banner
            tone={actionData.ok ? "success" : "critical"}
            title={actionData.ok ? "Disconnected" : "Not disconnected"}
          >
            <p>{actionData.message}</p>
          </Banner>
        )}
        <Card>
          <BlockStack gap="300">
            <Form method="get" action="/app/customers">
              <InlineStack gap="200" blockAlign="end">
                <div style={{ flexGrow: 1 }}>
                  <TextField
                    label="Search"
                    labelHidden
                    name="q"
                    value={query}
                    onChange={setQuery}
                    placeholder="Search by name, email, customer ID or workspace"
                    autoComplete="off"
                  />
                </div>
                <Button submit>Search</Button>
              </InlineStack>
            </Form>
            {grants.total === 0 ? (
              <BlockStack gap="100" inlineAlign="center">
                <Text as="h2" variant="headingMd">
                  {grants.query ? "No customers match" : "No connected customers yet"}
                </Text>
                <Text as="p" tone="subdued">
                  {grants.query
                    ? "Try another name, email or ID."
                    : 'Customers connect their workspace from the store\'s "Connect your workspace" page.'}
                </Text>
              </BlockStack>
            ) : (
              <IndexTable
                resourceName={{ singular: "customer", plural: "customers" }}
                itemCount={grants.items.length}
                selectable={false}
                headings={[
                  { title: "Customer" },
                  { title: "Workspace" },
                  { title: "Scopes" },
                  { title: "Connected" },
                  { title: "Last used" },
                  { title: "Status" },
                  { title: "" },
                ]}
              >
                {rows}
              </IndexTable>
            )}
            <InlineStack align="space-between" blockAlign="center">
              <Text as="span" tone="subdued">
                {grants.total} customer{grants.total === 1 ? "" : "s"} · page {grants.page} of {grants.pageCount}
              </Text>
              <Pagination
                hasPrevious={grants.page > 1}
                // A link only where there is a page to go to: Polaris renders a disabled link as an <a> without
                // href but with an aria-label, which ARIA does not allow.
                previousURL={grants.page > 1 ? pageLink(grants.page - 1) : undefined}
                hasNext={grants.page < grants.pageCount}
                nextURL={grants.page < grants.pageCount ? pageLink(grants.page + 1) : undefined}
              />
            </InlineStack>
          </BlockStack>
        </Card>
      </BlockStack>
    </Page>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary title="customers.title" />;
}
