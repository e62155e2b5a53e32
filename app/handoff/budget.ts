// The budgets in front of "Continue cart": per cart, per shopper address and per shop, so hammering the button
// (from one address or from many) cannot create unbounded handoffs, Admin API calls or records. The buckets
// themselves are the app's one token-bucket budget (app/lib/budget.ts).
import type { BucketPolicy } from "../lib/budget";

export { Budget, DEFAULT_MAX_KEYS, type BucketPolicy, type BudgetAnswer } from "../lib/budget";

export const CART_POLICY: BucketPolicy = { burst: 8, refillMs: 15_000 };
export const IP_POLICY: BucketPolicy = { burst: 60, refillMs: 1_000 };
/** Handoffs per minute for one shop, from all its shoppers together: a minute's worth at once, then steady. */
export const shopPolicy = (perMinute: number): BucketPolicy => ({ burst: perMinute, refillMs: 60_000 / perMinute });
