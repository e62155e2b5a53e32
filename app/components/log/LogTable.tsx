// The sync log's page of records: a selectable table with bulk retry and resolve, or what an empty view means, and
// the keyset pagination (app/admin/log.server.ts loads the page).
import { BlockStack, Box, IndexTable, Pagination, Text, useBreakpoints, useIndexResourceState } from "@shopify/polaris";
import type { LogFilter } from "../../admin/log-query.server";
import type { LogPage } from "../../admin/log.server";
import { useI18n } from "../i18n";
import { stateName } from "../sync-labels";
import { LogRowContent } from "./LogRow";

function LogEmptyState({ filter, filtered }: { filter: LogFilter; filtered: boolean }) {
  const { t, locale } = useI18n();
  return (
    <Box padding="600">
      <BlockStack gap="200" inlineAlign="center">
        <Text as="h2" variant="headingMd">
          {filtered
            ? filter.state
              ? t("log.empty.state", { state: stateName(t, filter.state).toLocaleLowerCase(locale) })
              : t("log.empty.filtered")
            : t("log.empty.title")}
        </Text>
        <Text as="p" tone="subdued" alignment="center">
          {t(filtered ? "log.empty.filteredHelp" : "log.empty.help")}
        </Text>
      </BlockStack>
    </Box>
  );
}

export function LogTable({
  page,
  filter,
  filtered,
  selection,
  loading,
  onBulk,
  onPage,
}: {
  page: LogPage;
  filter: LogFilter;
  filtered: boolean;
  selection: ReturnType<typeof useIndexResourceState>;
  /** A GET navigation (filters, another page) is under way. */
  loading: boolean;
  onBulk: (intent: "retry" | "resolve") => void;
  onPage: (key: "after" | "before", cursor: string | null) => void;
}) {
  const { t } = useI18n();
  const { selectedResources, allResourcesSelected, handleSelectionChange } = selection;
  // Below 490 px a row is a small stacked card instead of a wide table row (Polaris' condensed IndexTable).
  const condensed = useBreakpoints().smDown;
  return (
    <>
      {page.rows.length === 0 ? (
        <LogEmptyState filter={filter} filtered={filtered} />
      ) : (
        <IndexTable
          resourceName={{ singular: t("log.resource.one"), plural: t("log.resource.other") }}
          itemCount={page.rows.length}
          condensed={condensed}
          selectedItemsCount={allResourcesSelected ? "All" : selectedResources.length}
          onSelectionChange={handleSelectionChange}
          hasMoreItems={!!page.next || !!page.previous}
          loading={loading}
          promotedBulkActions={[
            {
              content: t(allResourcesSelected ? "log.bulk.retryAll" : "log.bulk.retry"),
              onAction: () => onBulk("retry"),
            },
            {
              content: t(allResourcesSelected ? "log.bulk.resolveAll" : "log.bulk.resolve"),
              onAction: () => onBulk("resolve"),
            },
          ]}
          headings={[
            { title: t("log.col.order") },
            { title: t("log.col.customer") },
            { title: t("log.col.date") },
            { title: t("log.col.state") },
            { title: t("log.col.details") },
            { title: t("log.col.attempts"), alignment: "end" },
          ]}
        >
          {page.rows.map((row, index) => (
            <IndexTable.Row id={row.id} key={row.id} position={index} selected={selectedResources.includes(row.id)}>
              <LogRowContent row={row} condensed={condensed} />
            </IndexTable.Row>
          ))}
        </IndexTable>
      )}
      <div style={{ padding: "12px", display: "flex", justifyContent: "center" }}>
        <Pagination
          hasPrevious={!!page.previous}
          hasNext={!!page.next}
          onPrevious={() => onPage("before", page.previous)}
          onNext={() => onPage("after", page.next)}
          label={t("log.shown", { count: page.rows.length })}
        />
      </div>
    </>
  );
}
