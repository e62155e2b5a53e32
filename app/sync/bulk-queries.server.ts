// The bulk backfill's side of Shopify's Admin GraphQL API (the runner is bulk-backfill.server.ts): the bulk query
// over the shop's orders, the mutation that starts it, the query that reads the operation's state. Shopify's
// rules for bulk queries (shopify.dev/docs/api/usage/bulk-operations/queries): at most 5 connections and 2 levels
// of nested connections; here 3 connections (orders, their lines, their fulfillments' lines), 2 levels deep.

/**
 * The shop's orders since a date with what the mapper reads (the paged query's fields, backfill-queries.server.ts).
 * Connections need no `first` in a bulk query. `__SINCE__` is replaced by the window's start (an ISO instant).
 */
export const BULK_ORDERS_QUERY = `#graphql
query SyncBulkOrdersQuery {
  orders(query: "created_at:>='__SINCE__'", sortKey: CREATED_AT) {
    edges {
      node {
        id
        name
        createdAt
        updatedAt
        currencyCode
        cancelledAt
        customer { id }
        lineItems {
          edges { node { id title name quantity currentQuantity sku product { id } } }
        }
        fulfillments {
          id
          createdAt
          updatedAt
          status
          trackingInfo { company number }
          fulfillmentLineItems {
            edges { node { id quantity lineItem { id } } }
          }
        }
      }
    }
  }
}`;

/** Starts the bulk query; children are not grouped under their parents (faster; the reader joins them). */
export const BULK_RUN_MUTATION = `#graphql
mutation SyncBulkOrders($query: String!) {
  bulkOperationRunQuery(query: $query, groupObjects: false) {
    bulkOperation { id status createdAt }
    userErrors { field message code }
  }
}`;

/** One operation by id (the 2026-01 query; currentBulkOperation is deprecated and knows one operation only). */
export const BULK_OPERATION_QUERY = `#graphql
query SyncBulkOperation($id: ID!) {
  bulkOperation(id: $id) { id status errorCode objectCount rootObjectCount url completedAt }
}`;

/** The bulk query for orders created since `since` (the backfills' earliest window start). */
export function bulkOrdersQuery(since: Date): string {
  return BULK_ORDERS_QUERY.replace("#graphql\n", "").replace("__SINCE__", since.toISOString());
}

export type BulkStatus = "CREATED" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELING" | "CANCELED" | "EXPIRED";

export interface BulkOperationNode {
  id: string;
  status: BulkStatus;
  errorCode?: string | null;
  /** UnsignedInt64: a string in JSON. */
  objectCount?: string | number | null;
  url?: string | null;
}

export interface BulkRunAnswer {
  data?: {
    bulkOperationRunQuery?: {
      bulkOperation: { id: string; status: BulkStatus } | null;
      userErrors: { field?: string[] | null; message: string; code?: string | null }[];
    } | null;
  };
  errors?: { message: string }[];
}

export interface BulkOperationAnswer {
  data?: { bulkOperation?: BulkOperationNode | null };
  errors?: { message: string }[];
}
