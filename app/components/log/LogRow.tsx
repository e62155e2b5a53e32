// One sync log row: a wide table row's cells, or below 490 px a small stacked card (Polaris' condensed IndexTable).
import { Link } from "@remix-run/react";
import { Badge, BlockStack, IndexTable, InlineStack, Text } from "@shopify/polaris";
import type { LogRow as Row } from "../../admin/log.server";
import { customerWords, reasonParts } from "../../admin/reason-words";
import { useI18n } from "../i18n";
import { ReasonText } from "../ServiceWords";
import { STATE_TONE, stateName } from "../sync-labels";

function RowTitle({ row }: { row: Row }) {
  const { t } = useI18n();
  return (
    <BlockStack gap="050">
      <Link to={`/app/log/${row.id}`} onClick={(e) => e.stopPropagation()} data-primary-link>
        <Text as="span" fontWeight="semibold">
          {row.kind === "handoff" ? t("kind.handoff") : (row.orderName ?? t("log.row.order", { id: row.orderId }))}
        </Text>
      </Link>
      <Text as="span" tone="subdued" variant="bodySm">
        {row.kind === "shipment"
          ? t("log.row.shipment", { id: row.externalId })
          : row.kind === "order"
            ? t("log.row.order", { id: row.orderId })
            : row.externalId}
      </Text>
    </BlockStack>
  );
}

function RowState({ row }: { row: Row }) {
  const { t } = useI18n();
  return (
    <InlineStack gap="100">
      <Badge tone={STATE_TONE[row.state]}>{stateName(t, row.state)}</Badge>
      {row.resolved ? <Badge>{t("state.resolved")}</Badge> : null}
    </InlineStack>
  );
}

function RowReason({ row }: { row: Row }) {
  const i18n = useI18n();
  return (
    <Text as="span" tone={row.state === "failed" && !row.resolved ? "critical" : undefined}>
      <ReasonText parts={reasonParts(i18n, row)} />
    </Text>
  );
}

/** What goes inside the row's IndexTable.Row. */
export function LogRowContent({ row, condensed }: { row: Row; condensed: boolean }) {
  const { t, dateTime, number } = useI18n();
  return condensed ? (
    <div style={{ padding: "12px 16px" }}>
      <BlockStack gap="100">
        <InlineStack align="space-between" gap="200" wrap={false}>
          <RowTitle row={row} />
          <RowState row={row} />
        </InlineStack>
        <Text as="span" tone="subdued" variant="bodySm">
          {[
            customerWords(t, row.customer, row.customerId),
            dateTime(row.createdAt),
            t("log.row.attempts", { count: row.attempts }),
          ]
            .filter(Boolean)
            .join(" · ")}
        </Text>
        {row.reason ? <RowReason row={row} /> : null}
      </BlockStack>
    </div>
  ) : (
    <>
      <IndexTable.Cell>
        <RowTitle row={row} />
      </IndexTable.Cell>
      <IndexTable.Cell>{customerWords(t, row.customer, row.customerId) || "—"}</IndexTable.Cell>
      <IndexTable.Cell>{dateTime(row.createdAt)}</IndexTable.Cell>
      <IndexTable.Cell>
        <RowState row={row} />
      </IndexTable.Cell>
      <IndexTable.Cell>
        <div style={{ whiteSpace: "normal", minWidth: "12rem", maxWidth: "28rem" }}>
          <RowReason row={row} />
        </div>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {number(row.attempts)}
        </Text>
      </IndexTable.Cell>
    </>
  );
}
