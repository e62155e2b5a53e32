// Shopify's CLI replaces `process.env.<NAME>` in a UI extension's bundle with the variable's value at build time
// (src/backend.ts reads APP_URL); there is no `process` in the extension's runtime.
declare const process: { env: { APP_URL?: string } };
