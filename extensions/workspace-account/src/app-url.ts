// The app's URL the blocks call: keep it equal to application_url in shopify.app.toml when deploying (the demo and
// the tests bundle with their own, scripts/ui-extensions.ts). Shopify's CLI bundles this file as it is.
export const APP_URL = "https://example.com";
