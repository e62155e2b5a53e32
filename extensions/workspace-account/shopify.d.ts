// What the Shopify CLI generates for each target (`shopify app dev` rewrites it): the `shopify` global's type in
// each entry module. Shared modules take the api as a parameter.
import "@shopify/ui-extensions";

declare module "./src/ProfileBlock.tsx" {
  const shopify: import("@shopify/ui-extensions/customer-account.profile.block.render").Api;
  const globalThis: { shopify: typeof shopify };
}

declare module "./src/OrderStatusBlock.tsx" {
  const shopify: import("@shopify/ui-extensions/customer-account.order-status.block.render").Api;
  const globalThis: { shopify: typeof shopify };
}

declare module "./src/ConnectPage.tsx" {
  const shopify: import("@shopify/ui-extensions/customer-account.page.render").Api;
  const globalThis: { shopify: typeof shopify };
}
