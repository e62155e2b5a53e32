// Budgets in front of every route a shopper or an anonymous client can call (Continue cart has its own, with the
// same buckets: app/handoff/flow.server.ts): per customer, per address and per shop, taken together (all or none), so
// an address or customer refused on its own budget does not spend the shop's, and a flood from many customers or
// addresses still meets the shop's. The shop's and the customer's buckets are shared by every process on PostgreSQL
// (./shared-budget.server.ts): N app processes allow what one does; the address's stays in each process's memory.
// A refusal is a 429 with Retry-After in the route's own shape, and it happens before any query or row.
import type { BucketPolicy, BudgetAnswer } from "./budget";
import { sha256 } from "./hash";
import { budgets, type BudgetEntry, type Budgets } from "./shared-budget.server";

export type ShopperAction = "connect" | "request";

interface Policies {
  customer: BucketPolicy;
  address: BucketPolicy;
  shop: BucketPolicy;
}

export const SHOPPER_POLICIES: Record<ShopperAction, Policies> = {
  // Starting a connection: an Admin API query (the account URL, cached per shop) and a state row (reused while
  // pending, capped per customer). A person clicks it a few times; a shared address (an office, a mobile
  // carrier's NAT) holds several people.
  connect: {
    customer: { burst: 5, refillMs: 20_000 },
    address: { burst: 30, refillMs: 2_000 },
    shop: { burst: 120, refillMs: 500 },
  },
  // Every other call: the customer's own rows (profile, order status), completion, disconnect, the connect page,
  // the OAuth callback. A page's worth of calls at once, then a few a second.
  request: {
    customer: { burst: 30, refillMs: 1_000 },
    address: { burst: 120, refillMs: 250 },
    shop: { burst: 1_200, refillMs: 5 },
  },
};

export interface ShopperKey {
  /** The client's address (clientAddress, ./client-address.ts): only its hash is kept. */
  address: string;
  shop?: string | null;
  customerId?: string | null;
}

/** Takes one request of `action` from the budgets of the address, the shop and the customer (those given). */
export function takeShopperBudget(
  action: ShopperAction,
  who: ShopperKey,
  on: Budgets = budgets(),
): Promise<BudgetAnswer> {
  const policies = SHOPPER_POLICIES[action];
  const entries: BudgetEntry[] = [
    { key: `${action}:ip:${sha256(who.address)}`, policy: policies.address, local: true },
  ];
  if (who.shop) {
    entries.push({ key: `${action}:shop:${who.shop}`, policy: policies.shop });
    if (who.customerId)
      entries.push({ key: `${action}:customer:${who.shop}:${who.customerId}`, policy: policies.customer });
  }
  return on.take(entries);
}

/** Whole seconds for Retry-After (at least 1). */
export const retryAfterSeconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));
