// MSW handlers answering the Admin API GraphQL the app sends for cart handoffs (the CartVariants query: shop
// currency and ProductVariant nodes by id) from a Catalog, the way Shopify answers: null for an unknown id. Priced
// and throttled by Shopify's rules (cost.ts).
import { graphql } from "msw";
import type { Catalog } from "./catalog";
import { costed, QueryCostLimiter } from "./cost";

export const ADMIN_API_VERSION = "2026-10";

export function adminApiHandlers(catalog: Catalog, shop: string, limiter = new QueryCostLimiter()) {
  const admin = graphql.link(`https://${shop}/admin/api/${ADMIN_API_VERSION}/graphql.json`);
  return [
    admin.query("CartVariants", (info) =>
      costed(limiter, info, () => {
        const { variables } = info;
        const ids = Array.isArray(variables.ids) ? (variables.ids as string[]) : [];
        const nodes = ids.map((gid) => {
          const v = catalog.variants.get(gid.replace("gid://shopify/ProductVariant/", ""));
          if (!v || !gid.startsWith("gid://shopify/ProductVariant/")) return null;
          return {
            id: gid,
            title: v.title,
            sku: v.sku,
            price: v.price,
            availableForSale: v.availableForSale,
            product: {
              id: `gid://shopify/Product/${v.productId}`,
              title: v.productTitle,
              status: v.productStatus,
              // As Shopify answers: the product's storefront URL, null unless published to the online store.
              onlineStoreUrl: v.published === false ? null : `https://${shop}/products/${v.productId}`,
            },
          };
        });
        return { data: { shop: { currencyCode: catalog.currency }, nodes } };
      }),
    ),
  ];
}

/**
 * The shop's customerAccountsV2 (the CustomerAccounts query): which customer accounts the store uses and the root
 * URL of its account pages. The setup guide and the customer account extension's return address read it.
 */
export function customerAccountsHandlers(
  shop: string,
  accounts: { version: "NEW_CUSTOMER_ACCOUNTS" | "CLASSIC"; url: string },
  limiter = new QueryCostLimiter(),
) {
  const admin = graphql.link(`https://${shop}/admin/api/${ADMIN_API_VERSION}/graphql.json`);
  return [
    admin.query("CustomerAccounts", (info) =>
      costed(limiter, info, () => ({
        data: { shop: { customerAccountsV2: { customerAccountsVersion: accounts.version, url: accounts.url } } },
      })),
    ),
  ];
}
