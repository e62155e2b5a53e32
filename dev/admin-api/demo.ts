// Every Admin API handler the demo serves, over the demo store's data (dev/demo-store): the cart's variant
// lookups (handlers.ts, over a catalog made of the store's products), the backfill's orders and the customers.
import { DEMO_CURRENCY, DEMO_PRODUCTS, DEMO_SHOP, orderHistory } from "../demo-store";
import { BulkOperations } from "./bulk";
import type { Catalog } from "./catalog";
import { adminApiHandlers, customerAccountsHandlers } from "./handlers";
import { orderHandlers } from "./orders";
import { storefrontApiHandlers } from "../storefront-api/handlers";
import { flowHandlers, type FlowTriggerCall } from "./flow";
import { themeHandlers } from "./themes";

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

/**
 * `customerAccountsUrl`: the demo's customer account pages (dev/customer-account), on the current customer accounts;
 * `onFlowTrigger`: each Shopify Flow trigger the app sends (the demo keeps them to show); `bulkWebhook`: where the
 * bulk operations' finish webhook goes (the app, signed with its secret; none: the app polls). A launch's bulk
 * operations finish two seconds after they start.
 */
export function demoAdminApiHandlers(
  options: {
    customerAccountsUrl?: string;
    onFlowTrigger?: (call: FlowTriggerCall) => void;
    bulkWebhook?: { appUrl: string; secret: string };
  } = {},
) {
  const catalog = demoCatalog();
  const accounts = options.customerAccountsUrl
    ? customerAccountsHandlers(DEMO_SHOP, { version: "NEW_CUSTOMER_ACCOUNTS", url: options.customerAccountsUrl })
    : [];
  // The Storefront API's carts live in the storefront stand-in (another process): here none is known, so the
  // app prices handoffs with the Admin API's base prices, as it does when Shopify has no market prices for a cart.
  return [
    ...accounts,
    ...adminApiHandlers(catalog, DEMO_SHOP),
    ...orderHandlers(),
    ...new BulkOperations({
      orders: () => orderHistory(),
      webhook: options.bulkWebhook ?? null,
      autoFinishMs: 2_000,
    }).handlers(),
    ...storefrontApiHandlers(catalog, DEMO_SHOP, new Map()),
    ...flowHandlers(options.onFlowTrigger),
    ...themeHandlers("on"),
  ];
}
