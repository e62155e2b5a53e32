// The Admin API for calls made on a shopper's behalf (Continue cart, the account page's connect): Shopify's library
// through the app's cost budget for the shop (app/sync/admin-budget.server.ts, shared with the worker when it runs
// in this process), so a shopper's clicks are counted against the same bucket as the app's own queries.
import { adminGraphqlViaShopify } from "../shopify/admin-api.server";
import { forShopper } from "../sync/admin-budget.server";

export const shopperAdminGraphql = forShopper(adminGraphqlViaShopify);
