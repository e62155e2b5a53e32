// The sync log's filter bar: a GET form whose values travel in the URL (app/admin/log-query.server.ts checks them).
// On a phone only the search shows; the other filters open on demand.
import { Form } from "@remix-run/react";
import { BlockStack, Button, InlineGrid, InlineStack, Select, TextField, useBreakpoints } from "@shopify/polaris";
import { useState } from "react";
import type { LogFilter } from "../../admin/log-query.server";
import { LOG_KINDS, LOG_STATES } from "../../admin/log-terms";
import type { MessageKey } from "../../i18n/catalog";
import { useI18n } from "../i18n";
import { KIND_LABEL, STATE_LABEL } from "../sync-labels";

const options = (
  t: (key: MessageKey) => string,
  values: readonly string[],
  labels: Record<string, MessageKey>,
  any: string,
) => [{ label: any, value: "" }, ...values.map((v) => ({ label: labels[v] ? t(labels[v]) : v, value: v }))];

export function LogFilters({ filter }: { filter: LogFilter }) {
  const { t } = useI18n();
  const [values, setValues] = useState({
    q: filter.q ?? "",
    kind: filter.kind ?? "",
    state: filter.state ?? "",
    from: filter.from ?? "",
    to: filter.to ?? "",
    customer: filter.customer ?? "",
    sort: filter.sort,
  });
  const set = (key: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [key]: value }));
  // On a phone only the search shows; the other filters open on demand (a view with them set says how many).
  const small = useBreakpoints().smDown;
  const [more, setMore] = useState(false);
  const active = [
    filter.kind,
    filter.state,
    filter.from,
    filter.to,
    filter.customer,
    filter.sort === "asc" ? "asc" : undefined,
  ].filter(Boolean).length;
  const showAll = !small || more;
  return (
    <Form method="get" aria-label={t("log.filters.label")}>
      <BlockStack gap="300">
        <InlineGrid columns={{ xs: 1, sm: 2, md: 4 }} gap="200">
          <TextField
            label={t("log.filters.order")}
            name="q"
            value={values.q}
            onChange={set("q")}
            autoComplete="off"
            placeholder="#1001"
            maxLength={64}
          />
          {showAll ? (
            <>
              <Select
                label={t("log.filters.kind")}
                name="kind"
                options={options(t, LOG_KINDS, KIND_LABEL, t("log.filters.allKinds"))}
                value={values.kind}
                onChange={set("kind")}
              />
              <Select
                label={t("log.filters.state")}
                name="state"
                options={options(t, LOG_STATES, STATE_LABEL, t("log.filters.allStates"))}
                value={values.state}
                onChange={set("state")}
              />
              <TextField
                label={t("log.filters.customer")}
                name="customer"
                value={values.customer}
                onChange={set("customer")}
                autoComplete="off"
                inputMode="numeric"
                maxLength={40}
              />
              {(["from", "to"] as const).map((bound) => (
                <TextField
                  key={bound}
                  label={t(`log.filters.${bound}`)}
                  name={bound}
                  type="date"
                  value={values[bound]}
                  onChange={set(bound)}
                  autoComplete="off"
                />
              ))}
              <Select
                label={t("log.filters.sort")}
                name="sort"
                options={[
                  { label: t("log.filters.newest"), value: "desc" },
                  { label: t("log.filters.oldest"), value: "asc" },
                ]}
                value={values.sort}
                onChange={set("sort")}
              />
            </>
          ) : (
            // Hidden but submitted: searching on a phone keeps the view's other filters.
            Object.entries(values)
              .filter(([key, value]) => key !== "q" && value)
              .map(([key, value]) => <input key={key} type="hidden" name={key} value={value} />)
          )}
        </InlineGrid>
        <InlineStack gap="200">
          <Button submit variant="primary">
            {t("log.filters.apply")}
          </Button>
          <Button url="/app/log">{t("log.filters.clear")}</Button>
          {small ? (
            <Button variant="plain" onClick={() => setMore((m) => !m)} ariaExpanded={more}>
              {more
                ? t("log.filters.fewer")
                : active
                  ? t("log.filters.moreSet", { count: active })
                  : t("log.filters.more")}
            </Button>
          ) : null}
        </InlineStack>
      </BlockStack>
    </Form>
  );
}
