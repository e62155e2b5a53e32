// What the storefront may send: the cart token, variant ids and quantities, and the shopper's locale. Nothing else
// from the browser is read (titles and prices come from Shopify). Works for the script's JSON and the
// no-JavaScript form (./proxy-handler.server.ts turns its repeated `line` fields into the same shape).
import { z } from "zod";
import { MAX_LINES } from "./resolver.server";

const MAX_QUANTITY = 100_000;

export type InputProblem = "empty_cart" | "too_many_lines" | "invalid_request";

// Other properties (a price, a title) are dropped, not refused: they are simply not the browser's to say.
const LineSchema = z.object({
  variant_id: z.union([z.string().regex(/^\d{1,20}$/), z.int().positive()]).transform(String),
  quantity: z.int().min(1).max(MAX_QUANTITY),
});

// Shopify's cart tokens are short URL-safe strings (a key query like "?key=..." included in newer ones).
const TokenSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_\-?=.~]+$/);

const InputSchema = z.object({
  token: TokenSchema.optional(),
  locale: z.string().max(16).optional(),
  // Counted before the element check so 201 well-formed lines say "too many", not "invalid".
  lines: z.array(z.unknown()).max(MAX_LINES * 4),
});

export interface CartInput {
  /** Absent for the no-JavaScript form: Liquid cannot read the cart token. */
  token: string | null;
  locale: string;
  lines: { variantId: string; quantity: number }[];
}

export type ParsedInput = { ok: true; input: CartInput } | { ok: false; problem: InputProblem; locale: string };

function localeOf(value: unknown): string {
  return typeof value === "string" ? value.slice(0, 16) : "en";
}

/** Validates the raw input; `raw` is the parsed JSON body, or a form turned into { token, locale, lines }. */
export function parseCartInput(raw: unknown): ParsedInput {
  const locale = localeOf((raw as { locale?: unknown } | null)?.locale);
  const base = InputSchema.safeParse(raw);
  if (!base.success) {
    const tooMany = Array.isArray((raw as { lines?: unknown } | null)?.lines);
    return { ok: false, problem: tooMany ? "too_many_lines" : "invalid_request", locale };
  }
  const { lines, token } = base.data;
  if (lines.length === 0) return { ok: false, problem: "empty_cart", locale };
  if (lines.length > MAX_LINES) return { ok: false, problem: "too_many_lines", locale };
  const parsed = z.array(LineSchema).safeParse(lines);
  if (!parsed.success) return { ok: false, problem: "invalid_request", locale };
  return {
    ok: true,
    input: {
      token: token ?? null,
      locale,
      lines: parsed.data.map((l) => ({ variantId: l.variant_id, quantity: l.quantity })),
    },
  };
}
