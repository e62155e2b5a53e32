// The sync log's CSV export under every list separator a spreadsheet may use: Excel in German, French or Dutch opens
// a .csv with ";" as the separator, others with a tab or ",". A customer's own display name (or any value a customer
// or Shopify controls) must never become a formula cell, whichever it is.
import { describe, expect, it } from "vitest";
import { csvLine } from "~/admin/log-export.server";
import type { LogRow } from "~/admin/log.server";

/**
 * The cells a spreadsheet makes of one line with `separator`: a cell starts at the line's start, after each
 * separator outside a quoted cell and after a line break; a quote is special only as a cell's first character.
 */
function cellsUnder(separator: string, text: string): string[] {
  const cells: string[] = [];
  let i = 0;
  while (i <= text.length) {
    let cell = "";
    if (text[i] === '"') {
      i++;
      for (; i < text.length; i++) {
        if (text[i] === '"' && text[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (text[i] === '"') break;
        else cell += text[i];
      }
      i++;
      while (i < text.length && text[i] !== separator && text[i] !== "\n" && text[i] !== "\r") cell += text[i++];
    } else {
      while (i < text.length && text[i] !== separator && text[i] !== "\n" && text[i] !== "\r") cell += text[i++];
    }
    cells.push(cell);
    i++;
  }
  return cells;
}

const row = (customer: string): LogRow => ({
  id: "rec-1",
  kind: "order",
  orderName: "#1001",
  orderId: "820982911946154508",
  externalId: "820982911946154508",
  customerId: "7001",
  customer,
  createdAt: "2026-11-01T10:00:00.000Z",
  state: "failed",
  resolved: false,
  reason: "The service refused it",
  reasonCode: "rejected",
  lines: null,
  attempts: 3,
  canRetry: true,
});

const HOSTILE = [
  "Ada;=1+1",
  "Ada,=1+1",
  "Ada\t=1+1",
  "Ada; =1+1",
  "Ada;+1",
  "Ada;-1",
  "Ada;@SUM(A1)",
  "=1+1",
  "Ada\n=1+1",
  "Ada\r\n@x",
  " =cmd|' /C calc'!A0",
];

describe("the CSV export", () => {
  it.each([",", ";", "\t"])(
    "under %j as the list separator, no cell a customer's name makes starts a formula",
    (separator) => {
      for (const name of HOSTILE) {
        const cells = cellsUnder(separator, csvLine(row(name)));
        for (const cell of cells)
          expect(cell.trimStart(), `${JSON.stringify(name)} → ${JSON.stringify(cell)}`).not.toMatch(/^[=+\-@]/);
      }
    },
  );

  it("still reads as the same columns with ',' and keeps the name legible", () => {
    const cells = cellsUnder(",", csvLine(row("Ada;=1+1")));
    expect(cells).toHaveLength(12);
    expect(cells[6]).toBe("Ada;'=1+1");
    expect(cellsUnder(",", csvLine(row("Ada Lovelace")))[6]).toBe("Ada Lovelace");
  });
});
