// The Admin API as this process calls it outside an admin request: Shopify's library with the shop's offline
// session (app/shopify/admin-api.server.ts over `unauthenticated.admin`), for the worker as it is; for calls made on
// a shopper's behalf (Continue cart, the account page's connect) through the app's cost budget for the shop
// (app/sync/admin-budget.server.ts, shared with the worker when it runs in this process), so a shopper's clicks are
// counted against the same bucket as the app's own queries.
import { unauthenticated } from "../shopify.server";
import { adminGraphqlVia } from "../shopify/admin-api.server";
import { forShopper } from "../sync/admin-budget.server";

export const adminGraphqlViaShopify = adminGraphqlVia(unauthenticated.admin);

export const shopperAdminGraphql = forShopper(adminGraphqlViaShopify);
