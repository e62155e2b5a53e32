// Field formats shared by the wire schemas, as service-contract.md section 6 defines them.
import { z } from "zod";

// RFC 3339 date-time with a zone (seconds required, fraction optional).
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export const dateTime = () =>
  z.string().refine((s) => RFC3339.test(s) && !Number.isNaN(Date.parse(s.toUpperCase())), {
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
