// Home's backfill progress: each backfill's customer, path (bulk or paged), orders queued and imported, the bulk
// operation's state, and why it waits or failed (app/admin/backfills.server.ts, backfill-words.ts).
import { Badge, BlockStack, Card, InlineStack, ProgressBar, Text } from "@shopify/polaris";
import type { BackfillView } from "../../admin/backfills.server";
import { backfillErrorWords } from "../../admin/backfill-words";
import { useI18n } from "../i18n";

/** Why a backfill waits or failed, in the admin's language; Shopify's own error code shown as it spells it. */
function BackfillError({ backfill }: { backfill: { error: string | null; errorDetails?: unknown } }) {
  const i18n = useI18n();
  const { t } = i18n;
  const words = backfillErrorWords(i18n, backfill);
  if (!words) return null;
  return (
    <Text as="p" tone="subdued">
      {words.text}
      {words.shopifyCode ? (
        <>
          {" "}
          ({t("home.backfills.shopifyCode")} <code translate="no">{words.shopifyCode}</code>)
        </>
      ) : null}
    </Text>
  );
}

export function BackfillsCard({ backfills }: { backfills: BackfillView[] }) {
  const { t } = useI18n();
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          {t("home.backfills.heading")}
        </Text>
        {backfills.map((b) => (
          <BlockStack gap="100" key={b.id}>
            <InlineStack align="space-between" wrap>
              <Text as="span">
                {t("home.backfills.progress", {
                  customer: b.customer,
                  days: b.days,
                  queued: b.queued,
                  imported: b.imported,
                  count: b.total,
                })}
              </Text>
              <Badge tone={b.status === "done" ? "success" : b.status === "failed" ? "critical" : "info"}>
                {t(b.status === "done" ? "common.done" : b.status === "failed" ? "common.failed" : "common.running")}
              </Badge>
            </InlineStack>
            <Text as="p" tone="subdued">
              {t(b.path === "bulk" ? "home.backfills.pathBulk" : "home.backfills.pathPaged")}
              {b.bulk
                ? b.bulk.stage === "waiting"
                  ? t("home.backfills.bulkWaiting")
                  : b.bulk.stage === "running"
                    ? t(
                        b.bulk.shopifyStatus === "CREATED"
                          ? "home.backfills.bulkCreated"
                          : "home.backfills.bulkRunning",
                        {
                          count: b.bulk.objects,
                        },
                      )
                    : t("home.backfills.bulkReading")
                : ""}
            </Text>
            <ProgressBar progress={b.percent} size="small" tone={b.status === "failed" ? "critical" : "primary"} />
            <BackfillError backfill={b} />
          </BlockStack>
        ))}
      </BlockStack>
    </Card>
  );
}
