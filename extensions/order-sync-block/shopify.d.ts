// What the Shopify CLI generates for each target (`shopify app dev` rewrites it): the `shopify` global's type in
// the entry module.
import "@shopify/ui-extensions";

declare module "./src/OrderSyncBlock.tsx" {
  const shopify: import("@shopify/ui-extensions/admin.order-details.block.render").Api;
  const globalThis: { shopify: typeof shopify };
}
