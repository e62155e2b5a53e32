// The cart's prices as Shopify prices them for the shopper: the Storefront API's `cart` by the cart's id (the
// Ajax API's cart token), whose cost lines are in the buyer's market currency with automatic discounts applied.
// Asked server-side with the shop's offline token (the library's `unauthenticated.storefront`); nothing
// price-related comes from the browser, only the cart token that names the cart. Titles, SKUs and availability
// still come from the Admin API (resolver.server.ts); these prices replace its base prices when Shopify has them
// for every line. See docs/continue-cart-prices.md.
import { z } from "zod";
import { MAX_LINES, toMinorUnits, type ResolvedLine } from "./resolver.server";

export type StorefrontGraphql = (query: string, variables: Record<string, unknown>) => Promise<unknown>;

export const CART_PRICES_QUERY = `#graphql
query CartPrices($id: ID!, $first: Int!) {
  cart(id: $id) {
    id
    buyerIdentity { countryCode }
    lines(first: $first) {
      nodes {
        quantity
        merchandise { ... on ProductVariant { id } }
        cost {
          amountPerQuantity { amount currencyCode }
          totalAmount { amount currencyCode }
        }
      }
    }
  }
}`;

const Amount = z.string().regex(/^\d{1,15}(\.\d{1,6})?$/);
const Currency = z.string().regex(/^[A-Z]{3}$/);
const Money = z.object({ amount: Amount, currencyCode: Currency });

const LineSchema = z.object({
  quantity: z.int().min(1).max(1_000_000),
  merchandise: z.object({ id: z.string().max(200).optional() }),
  cost: z.object({ amountPerQuantity: Money, totalAmount: Money }),
});

const AnswerSchema = z.object({
  data: z.object({
    cart: z
      .object({
        buyerIdentity: z
          .object({
            countryCode: z
              .string()
              .regex(/^[A-Z]{2}$/)
              .nullable()
              .optional(),
          })
          .nullable()
          .optional(),
        lines: z.object({ nodes: z.array(z.unknown()).max(MAX_LINES + 50) }),
      })
      .nullable(),
  }),
});

export type MarketPricing =
  | { ok: true; currency: string; country: string | null; unitPriceMinor: Map<string, number> }
  /** Why the Admin API's base prices are used instead (for the log; the shopper is not told). */
  | { ok: false; reason: "no_token" | "unreachable" | "no_cart" | "lines_differ" | "mixed_currencies" };

const variantIdOf = (gid: string | undefined) =>
  /^gid:\/\/shopify\/ProductVariant\/(\d{1,20})$/.exec(gid ?? "")?.[1] ?? null;

/** The Storefront API's id of the cart behind an Ajax API cart token. */
export const cartGid = (token: string) => `gid://shopify/Cart/${token}`;

/**
 * Each variant's unit price in the buyer's currency, as the Storefront API prices the cart: after the line's
 * automatic discounts when they come to whole minor units per item (line total ÷ quantity), else before them (the
 * discount then shows at checkout only). Refuses (ok: false) unless every requested line is in Shopify's cart with
 * the same quantity: the browser's lines and Shopify's cart must agree, or neither is trusted for prices.
 */
export async function marketPrices(
  graphql: StorefrontGraphql,
  token: string | null,
  lines: { variantId: string; quantity: number }[],
): Promise<MarketPricing> {
  if (!token) return { ok: false, reason: "no_token" };
  let answer: unknown;
  try {
    answer = await graphql(CART_PRICES_QUERY, { id: cartGid(token), first: MAX_LINES });
  } catch {
    return { ok: false, reason: "unreachable" };
  }
  const parsed = AnswerSchema.safeParse(answer);
  if (!parsed.success) return { ok: false, reason: "unreachable" };
  const cart = parsed.data.data.cart;
  if (!cart) return { ok: false, reason: "no_cart" };

  // Shopify may split one variant over several lines (a selling plan, line properties): summed per variant.
  const byVariant = new Map<string, { quantity: number; totalMinor: number; unitMinor: number; currency: string }>();
  for (const node of cart.lines.nodes) {
    const line = LineSchema.safeParse(node);
    if (!line.success) return { ok: false, reason: "unreachable" };
    const id = variantIdOf(line.data.merchandise.id);
    if (!id) return { ok: false, reason: "lines_differ" };
    const { amountPerQuantity, totalAmount } = line.data.cost;
    if (amountPerQuantity.currencyCode !== totalAmount.currencyCode) return { ok: false, reason: "mixed_currencies" };
    const currency = totalAmount.currencyCode;
    const seen = byVariant.get(id);
    const unitMinor = toMinorUnits(amountPerQuantity.amount, currency);
    const totalMinor = toMinorUnits(totalAmount.amount, currency);
    if (seen && (seen.currency !== currency || seen.unitMinor !== unitMinor))
      return { ok: false, reason: "lines_differ" };
    byVariant.set(id, {
      quantity: (seen?.quantity ?? 0) + line.data.quantity,
      totalMinor: (seen?.totalMinor ?? 0) + totalMinor,
      unitMinor,
      currency,
    });
  }

  const currencies = new Set([...byVariant.values()].map((v) => v.currency));
  if (currencies.size > 1) return { ok: false, reason: "mixed_currencies" };
  const wanted = new Map<string, number>();
  for (const l of lines) wanted.set(l.variantId, (wanted.get(l.variantId) ?? 0) + l.quantity);
  if (wanted.size !== byVariant.size) return { ok: false, reason: "lines_differ" };
  const unitPriceMinor = new Map<string, number>();
  for (const [id, quantity] of wanted) {
    const priced = byVariant.get(id);
    if (!priced || priced.quantity !== quantity) return { ok: false, reason: "lines_differ" };
    const discounted = priced.totalMinor / priced.quantity;
    unitPriceMinor.set(
      id,
      Number.isInteger(discounted) && discounted <= priced.unitMinor ? discounted : priced.unitMinor,
    );
  }
  const [currency] = currencies;
  if (!currency) return { ok: false, reason: "lines_differ" };
  return { ok: true, currency, country: cart.buyerIdentity?.countryCode ?? null, unitPriceMinor };
}

/** The resolved lines with the market's prices (every line has one: marketPrices checked they agree). */
export function withMarketPrices(lines: ResolvedLine[], pricing: Extract<MarketPricing, { ok: true }>): ResolvedLine[] {
  return lines.map((l) => ({ ...l, unitPriceMinor: pricing.unitPriceMinor.get(l.variantId) ?? l.unitPriceMinor }));
}
