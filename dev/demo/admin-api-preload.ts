// Loaded with `node --import` into the app (and worker) processes the demo starts, never imported by the app:
// Shopify's Admin API is answered in-process by the same MSW handlers the tests use, over the demo store's data.
// Every other request (the service emulator, the app's own) passes through untouched.
import { appendFileSync } from "node:fs";
import { setupServer } from "msw/node";
import { demoAdminApiHandlers } from "../admin-api/demo";

// Shopify Flow triggers the app sends, one JSON line each, for the admin stand-in's /admin/flow page.
const flowLog = process.env.DEMO_FLOW_LOG;
const server = setupServer(
  ...demoAdminApiHandlers({
    customerAccountsUrl: process.env.DEMO_CUSTOMER_ACCOUNT_URL,
    onFlowTrigger: flowLog ? (call) => appendFileSync(flowLog, `${JSON.stringify(call)}\n`) : undefined,
    // bulk_operations/finish to the app process on this machine, signed with its secret.
    bulkWebhook:
      process.env.PORT && process.env.SHOPIFY_API_SECRET
        ? { appUrl: `http://127.0.0.1:${process.env.PORT}`, secret: process.env.SHOPIFY_API_SECRET }
        : undefined,
  }),
);
server.listen({ onUnhandledRequest: "bypass" });
