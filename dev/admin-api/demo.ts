// Every Admin API handler the demo serves, over the demo store's data (dev/demo-store): the cart's variant
// lookups (handlers.ts, over a catalog made of the store's products), the backfill's orders and the customers.
import { DEMO_CURRENCY, DEMO_PRODUCTS, DEMO_SHOP } from "../demo-store";
import type { Catalog } from "./catalog";
import { adminApiHandlers, customerAccountsHandlers } from "./handlers";
import { orderHandlers } from "./orders";

/** The demo store's products as the Admin API's catalog (one variant each). */
export function demoCatalog(): Catalog {
  const variants = DEMO_PRODUCTS.map((p) => ({
    id: p.variantId,
    productId: p.id,
    productTitle: p.title,
    title: "Default Title",
    sku: p.sku,
    price: p.price,
    availableForSale: true,
    productStatus: "ACTIVE" as const,
  }));
  return { currency: DEMO_CURRENCY, variants: new Map(variants.map((v) => [v.id, v])) };
}

/** `customerAccountsUrl`: the demo's customer account pages (dev/customer-account), on the current customer accounts. */
export function demoAdminApiHandlers(options: { customerAccountsUrl?: string } = {}) {
  const accounts = options.customerAccountsUrl ? customerAccountsHandlers(DEMO_SHOP, { version: "NEW_CUSTOMER_ACCOUNTS", url: options.customerAccountsUrl }) : [];
  return [...accounts, ...adminApiHandlers(demoCatalog(), DEMO_SHOP), ...orderHandlers()];
}
