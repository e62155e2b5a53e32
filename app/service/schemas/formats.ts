// Field formats shared by the wire schemas (docs/service.md, "Endpoints"): dates, URIs, fixed lengths, quantities.
import { z } from "zod";

// RFC 3339 date-time with a zone (seconds required, fraction optional).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

// Checked field by field: Date.parse would quietly roll 2026-02-30 over to March.
export function isRfc3339DateTime(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[8] === undefined || (Number(m[8]) < 24 && Number(m[9]) < 60);
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour < 24 && minute < 60 && second <= 60 && offsetOk
  );
}

export const dateTime = () =>
  z.string().refine(isRfc3339DateTime, {
    message: "must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z",
  });

// RFC 3986 URI with a scheme.
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;
export const uri = () =>
  z.string().refine((s) => URI.test(s), { message: "must be an absolute URI with a scheme, e.g. https://…" });

/** A string of exactly n characters (Unicode code points, as JSON Schema counts them). */
export const exactLength = (n: number) =>
  z.string().refine((s) => [...s].length === n, { message: `must be exactly ${n} characters` });

export const positiveQuantity = () => z.number().gt(0, { message: "must be greater than 0" });
