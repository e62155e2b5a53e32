// The Admin API on a shopper's behalf, built once for every shopper entry: the shop's offline session through
// Shopify's library (app/shopify/admin-api.server.ts), within the shop's Admin API cost budget
// (app/shopify/admin-cost-budget.server.ts, forShopper: refused rather than kept waiting).
import { unauthenticated } from "../shopify.server";
import { adminGraphqlVia } from "../shopify/admin-api.server";
import { forShopper } from "../shopify/admin-cost-budget.server";

export const shopperAdmin = forShopper(adminGraphqlVia(unauthenticated.admin));

/** What a route's loader or action gets: the request, and the socket's peer from the server's load context. */
export interface CallerArgs {
  request: Request;
  context: { remoteAddress?: string };
}
