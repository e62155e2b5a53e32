// Home's sync health at a glance: settings and the last connection check, the worker and its backlog, today's
// imports, what needs attention and the customers connected (app/admin/home.server.ts counts them).
import { Badge, BlockStack, Button, Card, InlineGrid, InlineStack, Text } from "@shopify/polaris";
import type { HomeView } from "../../admin/home.server";
import { checkWords } from "../../admin/check-words";
import type { Translator } from "../../i18n/translate";
import { useI18n } from "../i18n";

const age = (t: Translator["t"], seconds: number) =>
  seconds < 90
    ? t("home.age.seconds", { count: seconds })
    : seconds < 5400
      ? t("home.age.minutes", { count: Math.round(seconds / 60) })
      : seconds < 172_800
        ? t("home.age.hours", { count: Math.round(seconds / 3600) })
        : t("home.age.days", { count: Math.round(seconds / 86_400) });

function Stat({ label, value, children }: { label: string; value: string; children?: React.ReactNode }) {
  return (
    <Card>
      <BlockStack gap="100">
        <Text as="h3" variant="headingSm" tone="subdued">
          {label}
        </Text>
        <Text as="p" variant="headingLg">
          {value}
        </Text>
        {children}
      </BlockStack>
    </Card>
  );
}

export function HealthStats({ home }: { home: HomeView }) {
  const i18n = useI18n();
  const { t, dateTime, number } = i18n;
  const check = home.settings.lastCheck;
  return (
    <InlineGrid columns={{ xs: 1, sm: 2, md: 3 }} gap="300">
      <Stat
        label={t("home.stat.settings")}
        value={t(home.settings.complete ? "home.stat.complete" : "home.stat.notComplete")}
      >
        <InlineStack gap="100">
          <Badge tone={home.settings.environment === "production" ? "success" : "info"}>
            {t(home.settings.environment === "production" ? "common.production" : "common.sandbox")}
          </Badge>
          {check ? (
            <Badge tone={check.ok ? "success" : "critical"}>
              {t(check.ok ? "home.check.ok" : "home.check.failed")}
            </Badge>
          ) : null}
        </InlineStack>
        <Text as="p" tone="subdued" variant="bodySm">
          {check
            ? check.ok
              ? t("home.check.lastChecked", { at: dateTime(check.at) })
              : t("home.check.lastCheckedFailed", { at: dateTime(check.at), message: checkWords(i18n, check) })
            : t("home.check.never")}
        </Text>
      </Stat>
      <Stat
        label={t("home.stat.worker")}
        value={t(home.worker.alive ? "home.worker.running" : "home.worker.notRunning")}
      >
        <Text as="p" tone={home.worker.alive ? "subdued" : "critical"} variant="bodySm">
          {home.worker.alive
            ? t("home.worker.backlog", { count: home.backlog })
            : home.worker.lastBeatAt
              ? t("home.worker.silentSince", { at: dateTime(home.worker.lastBeatAt), count: home.backlog })
              : t("home.worker.silent", { count: home.backlog })}
        </Text>
        <Text as="p" tone="subdued" variant="bodySm">
          {home.oldestWaitingSeconds === null
            ? t("home.worker.nothingWaiting")
            : t("home.worker.oldest", { age: age(t, home.oldestWaitingSeconds) })}
        </Text>
      </Stat>
      <Stat label={t("home.stat.importedToday")} value={number(home.importsToday)} />
      <Stat label={t("home.stat.attention")} value={number(home.needsAttention)}>
        {home.needsAttention > 0 ? (
          <div>
            <Button url="/app/log?state=attention" variant="plain">
              {t("home.seeFailures")}
            </Button>
          </div>
        ) : (
          <Text as="p" tone="subdued" variant="bodySm">
            {t("home.nothingToFix")}
          </Text>
        )}
      </Stat>
      <Stat label={t("home.stat.customers")} value={number(home.customersConnected)}>
        <div>
          <Button url="/app/customers" variant="plain">
            {t("home.seeCustomers")}
          </Button>
        </div>
      </Stat>
    </InlineGrid>
  );
}
