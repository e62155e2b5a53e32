// The sync log as CSV: the same rows as the filtered view, streamed page by page with the keyset cursor, so a
// 100,000-row export holds one page in memory at a time and stops reading when the download is cancelled.
import type { PrismaClient } from "@prisma/client";
import type { LogFilter } from "./log-query.server";
import { walkLog, type LogRow } from "./log.server";
import { translator, type Translator } from "../i18n/translate";
import { reasonWords } from "./reason-words";

const ENGLISH = translator("en");

export const CSV_COLUMNS = [
  "id",
  "kind",
  "order_name",
  "order_id",
  "external_id",
  "customer_id",
  "customer",
  "created_at",
  "state",
  "resolved",
  "reason",
  "attempts",
] as const;

/**
 * One CSV field, safe under any list separator. A spreadsheet opening the file with ";" or a tab as its separator
 * (German, French, Dutch Excel) starts a cell after every ";" or tab, quoted field or not, and one after a line
 * break: so wherever a cell could start (the field's start, or after ",", ";", a tab or a line break, spaces
 * aside), a =, +, - or @ gets a ' before it and the customer-controlled value is never run as a formula (a leading
 * tab or CR too). A field holding a separator, a quote or a line break is quoted.
 */
export function csvField(value: string | number | boolean | null): string {
  let s = value === null ? "" : String(value);
  if (/^[\t\r]/.test(s)) s = `'${s}`;
  s = s.replace(/(^|[,;\t\r\n])([ ]*)([=+\-@])/g, "$1$2'$3");
  return /[",;\t\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(row: LogRow, words: Translator = ENGLISH): string {
  return [
    row.id,
    row.kind,
    row.orderName,
    row.orderId,
    row.externalId,
    row.customerId,
    row.customer,
    row.createdAt,
    row.state,
    row.resolved,
    reasonWords(words, row),
    row.attempts,
  ]
    .map(csvField)
    .join(",");
}

export function exportLogCsv(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
  pageSize = 1000,
  words: Translator = ENGLISH,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const pages = walkLog(prisma, shop, filter, pageSize);
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    // Pull-based: the next page is read only when the consumer has taken the previous one.
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        // The header row in the admin's language (the columns' order is fixed: CSV_COLUMNS).
        const header = CSV_COLUMNS.map((column) => csvField(words.t(`csv.${column}`)));
        controller.enqueue(encoder.encode(`${header.join(",")}\r\n`));
        return;
      }
      const { value, done } = await pages.next();
      if (done) return controller.close();
      controller.enqueue(encoder.encode(value.map((row) => `${csvLine(row, words)}\r\n`).join("")));
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
}
