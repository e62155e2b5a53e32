// Resolves the shopper's variant ids through the Admin API (GraphQL `nodes`): titles, SKUs, product ids, prices in
// minor units and the shop's currency. The GraphQL call is injected, so the route passes the Admin API client
// (app/shopify/admin-api.server.ts, Shopify's library) and nothing here knows about sessions or tokens.
import { z } from "zod";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { AdminApiBusy } from "../shopify/admin-api-busy";

/** The most lines one cart may have: a handoff carries at most 200 (the service's limit), each resolved here. */
export const MAX_LINES = 200;

export const CART_VARIANTS_QUERY = `#graphql
query CartVariants($ids: [ID!]!) {
  shop { currencyCode }
  nodes(ids: $ids) {
    ... on ProductVariant {
      id
      title
      sku
      price
      availableForSale
      product { id title status onlineStoreUrl }
    }
  }
}`;

const VariantSchema = z.object({
  id: z.string(),
  title: z.string().max(1000),
  sku: z.string().max(1000).nullable().optional(),
  price: z.string().regex(/^-?\d{1,15}(\.\d{1,6})?$/),
  availableForSale: z.boolean(),
  // onlineStoreUrl is null unless the product is published to the online store (Shopify's own test for it).
  product: z.object({
    id: z.string(),
    title: z.string().max(1000),
    status: z.string(),
    onlineStoreUrl: z.string().nullable().optional(),
  }),
});

const AnswerSchema = z.object({
  data: z.object({
    shop: z.object({ currencyCode: z.string().regex(/^[A-Z]{3}$/) }),
    nodes: z.array(z.unknown()),
  }),
});

export interface ResolvedLine {
  variantId: string;
  productId: string;
  sku: string | null;
  title: string;
  quantity: number;
  unitPriceMinor: number;
}

export type Resolution =
  | { ok: true; currency: string; lines: ResolvedLine[] }
  | { ok: false; problem: "unavailable"; items: string[] }
  | { ok: false; problem: "admin_unreachable"; detail: string }
  /** Not asked: the shop's Admin API budget cannot pay for it now (app/shopify/admin-cost-budget.server.ts, forShopper). */
  | { ok: false; problem: "busy"; retryAfterMs: number };

const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;
const numericId = (g: string) => g.slice(g.lastIndexOf("/") + 1);

// Building an Intl.NumberFormat costs tens of microseconds: once per currency, not once per line. Bounded anyway,
// though the currency comes from the Admin API, already checked to be three capital letters.
const fractionDigitsByCurrency = new Map<string, number>();

function fractionDigits(currency: string): number {
  let digits = fractionDigitsByCurrency.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    if (fractionDigitsByCurrency.size < 1000) fractionDigitsByCurrency.set(currency, digits);
  }
  return digits;
}

/** Decimal string → integer minor units, exact (no floating point), with the currency's own number of decimals. */
export function toMinorUnits(price: string, currency: string): number {
  const digits = fractionDigits(currency);
  const [whole, frac = ""] = price.replace(/^-/, "").split(".");
  const padded = (frac + "0".repeat(digits)).slice(0, digits);
  const value = Number(whole) * 10 ** digits + (padded ? Number(padded) : 0);
  return price.startsWith("-") ? -value : value;
}

function lineTitle(productTitle: string, variantTitle: string) {
  return variantTitle && variantTitle !== "Default Title" ? `${productTitle} - ${variantTitle}` : productTitle;
}

/**
 * Looks the lines up; only variants of active products published to the online store and for sale resolve. Any
 * other makes the whole cart unavailable: a sold-out one named, one the storefront does not show by its id only.
 */
export async function resolveCart(
  graphql: AdminGraphql,
  shop: string,
  lines: { variantId: string; quantity: number }[],
): Promise<Resolution> {
  const ids = [...new Set(lines.map((l) => gid("ProductVariant", l.variantId)))];
  let answer: unknown;
  try {
    answer = await graphql(shop, CART_VARIANTS_QUERY, { ids });
  } catch (error) {
    if (error instanceof AdminApiBusy) return { ok: false, problem: "busy", retryAfterMs: error.retryAfterMs };
    return { ok: false, problem: "admin_unreachable", detail: error instanceof Error ? error.name : "error" };
  }
  const parsed = AnswerSchema.safeParse(answer);
  if (!parsed.success || parsed.data.data.nodes.length !== ids.length) {
    return { ok: false, problem: "admin_unreachable", detail: "unexpected Admin API answer" };
  }
  const currency = parsed.data.data.shop.currencyCode;
  const byId = new Map<string, z.infer<typeof VariantSchema>>();
  parsed.data.data.nodes.forEach((node, i) => {
    const v = VariantSchema.safeParse(node);
    if (v.success && v.data.id === ids[i]) byId.set(ids[i], v.data);
  });

  const unavailable: string[] = [];
  const resolved: ResolvedLine[] = [];
  for (const line of lines) {
    const v = byId.get(gid("ProductVariant", line.variantId));
    if (!v) {
      unavailable.push(`item ${line.variantId}`); // deleted: its title is gone with it
      continue;
    }
    // A draft, archived or unpublished product is not on the storefront: the shopper cannot buy it and is not told
    // its name (a crafted cart must not learn or carry it); it is refused as if it did not exist.
    if (v.product.status !== "ACTIVE" || !v.product.onlineStoreUrl) {
      unavailable.push(`item ${line.variantId}`);
      continue;
    }
    const title = lineTitle(v.product.title, v.title);
    if (!v.availableForSale) {
      unavailable.push(title); // on the storefront, sold out: its name is public
      continue;
    }
    resolved.push({
      variantId: line.variantId,
      productId: numericId(v.product.id),
      sku: v.sku || null,
      title,
      quantity: line.quantity,
      unitPriceMinor: toMinorUnits(v.price, currency),
    });
  }
  if (unavailable.length > 0) return { ok: false, problem: "unavailable", items: [...new Set(unavailable)] };
  return { ok: true, currency, lines: resolved };
}
