// MSW handlers answering the Storefront API GraphQL the app sends for a cart's prices (the CartPrices query:
// `cart(id:)` with its lines' cost), the way Shopify prices a cart for its buyer's market: each line at the
// market's price for the variant (a catalog market's price list, or the shop's base price in the shop's currency),
// less the market's automatic percentage discount on that variant; amounts as decimal strings. A cart the stand-in
// does not hold answers `cart: null`, as Shopify does for an unknown or expired id. A request without the private
// token header is refused, as Shopify refuses it.
import { graphql, HttpResponse } from "msw";
import type { Catalog } from "../admin-api/catalog";
import { ADMIN_API_VERSION } from "../admin-api/handlers";

/** A cart as Shopify holds it: its lines and the buyer's country (its market). */
export interface StorefrontCart {
  country: string;
  lines: { variantId: string; quantity: number }[];
}

/** Carts by their Ajax API token (the Storefront API's cart id is gid://shopify/Cart/<token>). */
export type StorefrontCarts = Map<string, StorefrontCart>;

const decimals = (currency: string) =>
  new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
const minor = (amount: string, digits: number) => Math.round(Number(amount) * 10 ** digits);
const money = (minorUnits: number, currency: string) => {
  const digits = decimals(currency);
  return { amount: (minorUnits / 10 ** digits).toFixed(digits), currencyCode: currency };
};

export function storefrontApiHandlers(catalog: Catalog, shop: string, carts: StorefrontCarts) {
  const api = graphql.link(`https://${shop}/api/${ADMIN_API_VERSION}/graphql.json`);
  return [
    api.query("CartPrices", ({ variables, request }) => {
      if (!request.headers.get("shopify-storefront-private-token"))
        return HttpResponse.json({ errors: [{ message: "Unauthorized" }] }, { status: 401 });
      const token = String(variables.id ?? "").replace(/^gid:\/\/shopify\/Cart\//, "");
      const cart = carts.get(token);
      if (!cart) return HttpResponse.json({ data: { cart: null } });
      const market = catalog.markets?.find((m) => m.countries.includes(cart.country));
      const currency = market?.currency ?? catalog.currency;
      const digits = decimals(currency);
      const nodes = cart.lines.map((line) => {
        const v = catalog.variants.get(line.variantId);
        const unit = minor(market?.prices[line.variantId] ?? v?.price ?? "0", digits);
        const percent = market?.automaticDiscountPercent?.[line.variantId] ?? 0;
        const total = Math.round(unit * line.quantity * (1 - percent / 100));
        return {
          quantity: line.quantity,
          merchandise: { id: `gid://shopify/ProductVariant/${line.variantId}` },
          cost: { amountPerQuantity: money(unit, currency), totalAmount: money(total, currency) },
        };
      });
      return HttpResponse.json({
        data: { cart: { id: variables.id, buyerIdentity: { countryCode: cart.country }, lines: { nodes } } },
      });
    }),
  ];
}
