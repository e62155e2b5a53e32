// The Admin API version the whole app speaks (auth, webhooks, the backfill's GraphQL calls, tests): one constant.
// The newest stable version in @shopify/shopify-api 15 (ApiVersion.October26); keep in step with
// shopify.app.toml. Client-safe (a plain string), so scripts and tests import it without the Shopify server library.
export const SHOPIFY_API_VERSION = "2026-10";
