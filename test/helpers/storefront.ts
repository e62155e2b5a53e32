// The storefront stand-in lives in dev/storefront (the demo uses it too).
export {
  layout,
  renderLiquid,
  routeStorefront,
  type StorefrontCart,
  type StorefrontOptions,
} from "../../dev/storefront/proxy";
