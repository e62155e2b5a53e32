// The Admin API for work that runs outside an admin request (the sync worker, the storefront's connect flow):
// every call goes through Shopify's library (`unauthenticated.admin` of app/shopify.server.ts, handed in by the
// routes and the worker's wiring, app/runtime/worker-deps.server.ts), which loads the shop's offline session through the app's
// session storage (so the stored, encrypted token is decrypted there) and speaks the app's API version.
import { GraphqlQueryError, HttpRequestError } from "@shopify/shopify-api";
import type { UnauthenticatedAdminContext } from "@shopify/shopify-app-remix/server";

/** One Admin GraphQL call for a shop: the JSON answer (`data`, or `errors` for GraphQL-level failures). */
export type AdminGraphql = (shop: string, query: string, variables: Record<string, unknown>) => Promise<unknown>;

/** Shopify's library's client for a shop's offline session: `unauthenticated.admin` (app/shopify.server.ts). */
export type OfflineAdmin = (shop: string) => Promise<Pick<UnauthenticatedAdminContext, "admin">>;

/** Admin GraphQL calls through the library's offline session of each shop. */
export const adminGraphqlVia =
  (offlineAdmin: OfflineAdmin): AdminGraphql =>
  async (shop, query, variables) => {
    const { admin } = await offlineAdmin(shop);
    try {
      const response = await admin.graphql(query, { variables });
      return await response.json();
    } catch (err) {
      // GraphQL-level errors (throttling, a bad query) come back as a body with `errors`, worded by the caller.
      // Their `extensions.cost` (THROTTLED's bucket status) is kept for the caller's pacing.
      const graphQLErrors = err instanceof GraphqlQueryError ? err.body?.errors?.graphQLErrors : undefined;
      if (Array.isArray(graphQLErrors))
        return { errors: graphQLErrors, extensions: (err as GraphqlQueryError).body?.extensions };
      // No answer at all: say so plainly rather than in the library's words.
      if (err instanceof HttpRequestError) throw new Error("Shopify's Admin API could not be reached");
      throw err;
    }
  };

/** The same call through an admin request's own client (authenticate.admin's `admin`), e.g. in a page's loader. */
export function adminGraphqlOf(admin: {
  graphql: (query: string, options?: { variables?: Record<string, unknown> }) => Promise<Response>;
}): AdminGraphql {
  return async (_shop, query, variables) => (await admin.graphql(query, { variables })).json();
}
