// Home's imports and failures per day, the last 7 or 30 days (DayChart draws them).
import { BlockStack, Button, ButtonGroup, Card, InlineStack, Text } from "@shopify/polaris";
import { useState } from "react";
import { DayChart, type DayPoint } from "../DayChart";
import { useI18n } from "../i18n";

export function ActivityChartCard({ days }: { days: DayPoint[] }) {
  const { t } = useI18n();
  const [range, setRange] = useState<7 | 30>(7);
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center" wrap>
          <Text as="h2" variant="headingMd">
            {t("home.chart.heading")}
          </Text>
          <ButtonGroup variant="segmented">
            <Button pressed={range === 7} onClick={() => setRange(7)}>
              {t("home.chart.days", { count: 7 })}
            </Button>
            <Button pressed={range === 30} onClick={() => setRange(30)}>
              {t("home.chart.days", { count: 30 })}
            </Button>
          </ButtonGroup>
        </InlineStack>
        <DayChart id={`chart-${range}`} points={days.slice(-range)} />
      </BlockStack>
    </Card>
  );
}
