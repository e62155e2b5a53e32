// Imports and failures per day as a small SVG bar chart. The SVG is for sighted users; the same facts are in a text
// summary, in each bar's title, and day by day in a table that only screen readers read (WCAG 1.1.1, 1.3.1). The
// legend names each part by its place in the bar, not by its colour alone (1.4.1). No chart library: this is all it
// needs.
import { BlockStack, Box, Text } from "@shopify/polaris";

export interface DayPoint {
  day: string;
  imports: number;
  failures: number;
}

const HEIGHT = 120;

export function summarize(points: DayPoint[]): string {
  const imports = points.reduce((n, p) => n + p.imports, 0);
  const failures = points.reduce((n, p) => n + p.failures, 0);
  const busiest = points.reduce<DayPoint | null>((best, p) => (p.imports > (best?.imports ?? 0) ? p : best), null);
  const parts = [
    `Last ${points.length} days: ${imports} import${imports === 1 ? "" : "s"}, ${failures} failure${failures === 1 ? "" : "s"}.`,
  ];
  if (busiest) parts.push(`Busiest day ${busiest.day} with ${busiest.imports}.`);
  return parts.join(" ");
}

export function DayChart({ points, id }: { points: DayPoint[]; id: string }) {
  const max = Math.max(1, ...points.map((p) => p.imports + p.failures));
  const slot = 100 / points.length;
  const bar = slot * 0.7;
  const summary = summarize(points);
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
              <title>{`${p.day}: ${p.imports} imported, ${p.failures} failed`}</title>
              <rect x={x} y={HEIGHT - importsH} width={bar} height={importsH} fill="#29845a" />
              <rect x={x} y={HEIGHT - importsH - failuresH} width={bar} height={failuresH} fill="#c70a24" />
            </g>
          );
        })}
      </svg>
      <Text as="p" tone="subdued" variant="bodySm">
        Lower part of each bar (green): imported. Upper part (red): failed. {points[0]?.day} to{" "}
        {points[points.length - 1]?.day} (UTC).
      </Text>
      <Box visuallyHidden>
        <table>
          <caption>
            Imports and failures per day, {points[0]?.day} to {points[points.length - 1]?.day} (UTC)
          </caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Imported</th>
              <th scope="col">Failed</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.day}>
                <th scope="row">{p.day}</th>
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
