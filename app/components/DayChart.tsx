// Imports and failures per day as a small SVG bar chart. The SVG is for sighted users; the same facts are in a text
// summary, in each bar's title, and day by day in a table that only screen readers read (WCAG 1.1.1, 1.3.1). The
// legend names each part by its place in the bar, not by its colour alone (1.4.1). No chart library: this is all it
// needs.
import { BlockStack, Box, Text } from "@shopify/polaris";
import type { Translator } from "../i18n/translate";
import { useI18n } from "./i18n";

export interface DayPoint {
  day: string;
  imports: number;
  failures: number;
}

const HEIGHT = 120;

export function summarize(points: DayPoint[], { t, date }: Translator): string {
  const imports = points.reduce((n, p) => n + p.imports, 0);
  const failures = points.reduce((n, p) => n + p.failures, 0);
  const busiest = points.reduce<DayPoint | null>((best, p) => (p.imports > (best?.imports ?? 0) ? p : best), null);
  const parts = [
    t("chart.summary", {
      days: points.length,
      imports: t("chart.imports", { count: imports }),
      failures: t("chart.failures", { count: failures }),
    }),
  ];
  if (busiest) parts.push(t("chart.busiest", { day: date(busiest.day), count: busiest.imports }));
  return parts.join(" ");
}

export function DayChart({ points, id }: { points: DayPoint[]; id: string }) {
  const max = Math.max(1, ...points.map((p) => p.imports + p.failures));
  const slot = 100 / points.length;
  const bar = slot * 0.7;
  const i18n = useI18n();
  const { t, date } = i18n;
  const summary = summarize(points, i18n);
  const first = date(points[0]?.day ?? null);
  const last = date(points[points.length - 1]?.day ?? null);
  return (
    <BlockStack gap="200">
      <Text as="p" id={`${id}-summary`}>
        {summary}
      </Text>
      <svg
        viewBox={`0 0 100 ${HEIGHT}`}
        preserveAspectRatio="none"
        width="100%"
        height={HEIGHT}
        role="img"
        aria-labelledby={`${id}-summary`}
        data-testid={id}
      >
        {points.map((p, i) => {
          const importsH = (p.imports / max) * (HEIGHT - 4);
          const failuresH = (p.failures / max) * (HEIGHT - 4);
          const x = i * slot + (slot - bar) / 2;
          return (
            <g key={p.day}>
              <title>{t("chart.bar", { day: date(p.day), imports: p.imports, failures: p.failures })}</title>
              <rect x={x} y={HEIGHT - importsH} width={bar} height={importsH} fill="#29845a" />
              <rect x={x} y={HEIGHT - importsH - failuresH} width={bar} height={failuresH} fill="#c70a24" />
            </g>
          );
        })}
      </svg>
      <Text as="p" tone="subdued" variant="bodySm">
        {t("chart.legend", { first, last })}
      </Text>
      <Box visuallyHidden>
        <table>
          <caption>{t("chart.caption", { first, last })}</caption>
          <thead>
            <tr>
              <th scope="col">{t("chart.day")}</th>
              <th scope="col">{t("chart.imported")}</th>
              <th scope="col">{t("chart.failed")}</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.day}>
                <th scope="row">{date(p.day)}</th>
                <td>{p.imports}</td>
                <td>{p.failures}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Box>
    </BlockStack>
  );
}
