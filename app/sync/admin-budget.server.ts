// Admin API calls that keep to Shopify's calculated query cost: each answer's `extensions.cost.throttleStatus` says
// how full the shop's bucket is (kept here per shop, per process); before the next query the caller waits until the
// bucket holds what that query last asked for. A THROTTLED answer (another process drew on the same bucket) waits
// for the points and asks again, so throttling never surfaces; MAX_COST_EXCEEDED is thrown as its own error for the
// caller to split the query (smaller pages).
import { adminQueryCost, adminThrottled, adminThrottleWaitSeconds } from "../lib/metrics.server";
import { realSleep } from "../lib/sleep";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { AdminApiBusy } from "../shopify/admin-api-busy";

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

interface QueryCost {
  requestedQueryCost?: number;
  actualQueryCost?: number | null;
  throttleStatus?: ThrottleStatus;
}

export interface GraphqlAnswer {
  data?: unknown;
  errors?: { message: string; extensions?: { code?: string } }[];
  extensions?: { cost?: QueryCost };
}

export class MaxCostExceeded extends Error {
  constructor() {
    super("a query asked for more than Shopify's single-query cost limit");
  }
}

/** What this process last heard of each shop's bucket, and what each query last asked for. */
export class AdminCostBudget {
  private readonly shops = new Map<string, { status: ThrottleStatus; at: number }>();
  private readonly requested = new Map<string, number>();

  /** The points the shop's bucket holds now, by the last status and the restore rate since. */
  available(shop: string, nowMs: number): number | undefined {
    const seen = this.shops.get(shop);
    if (!seen) return undefined;
    const { maximumAvailable, currentlyAvailable, restoreRate } = seen.status;
    return Math.min(maximumAvailable, currentlyAvailable + (Math.max(0, nowMs - seen.at) / 1000) * restoreRate);
  }

  /** How long to wait before a query costing `cost` fits (0 when it does, or when nothing is known yet). */
  waitMs(shop: string, cost: number, nowMs: number): number {
    const available = this.available(shop, nowMs);
    const status = this.shops.get(shop)?.status;
    if (available === undefined || !status || available >= cost) return 0;
    return Math.ceil(((Math.min(cost, status.maximumAvailable) - available) / Math.max(1, status.restoreRate)) * 1000);
  }

  /** Takes in an answer's cost: what the query asked for, what is left in the bucket, and what it spent (metric). */
  observe(shop: string, key: string, cost: QueryCost | undefined, nowMs: number) {
    if (!cost) return;
    if (typeof cost.actualQueryCost === "number" && cost.actualQueryCost > 0)
      adminQueryCost.series().inc(cost.actualQueryCost);
    if (typeof cost.requestedQueryCost === "number") this.requested.set(key, cost.requestedQueryCost);
    const s = cost.throttleStatus;
    if (
      s &&
      [s.maximumAvailable, s.currentlyAvailable, s.restoreRate].every(
        (n) => typeof n === "number" && Number.isFinite(n),
      )
    ) {
      if (this.shops.size >= 10_000 && !this.shops.has(shop)) this.shops.delete(this.shops.keys().next().value!);
      this.shops.set(shop, { status: { ...s }, at: nowMs });
    }
  }

  /** Counts a query just sent against the shop's bucket until its answer says what is left (known shops only). */
  spend(shop: string, points: number, nowMs: number) {
    const seen = this.shops.get(shop);
    if (!seen) return;
    const available = this.available(shop, nowMs)!;
    this.shops.set(shop, {
      status: { ...seen.status, currentlyAvailable: Math.max(0, available - points) },
      at: nowMs,
    });
  }

  /** What the query last asked for; a query not seen yet waits for a full bucket (no restored point is lost). */
  lastRequested(key: string): number {
    return this.requested.get(key) ?? Number.POSITIVE_INFINITY;
  }
}

/** The process's view of every shop's bucket (the worker's jobs share it). */
export const sharedAdminBudget = new AdminCostBudget();

export interface BudgetedDeps {
  adminGraphql: AdminGraphql;
  now: () => Date;
  sleep?: (ms: number) => Promise<void>;
  budget?: AdminCostBudget;
}

const MAX_THROTTLED_RETRIES = 8;

// The same query with the same sizes asks for the same cost each time.
const costKey = (query: string, variables: Record<string, unknown>) =>
  `${/query\s+(\w+)/.exec(query)?.[1] ?? query}:${JSON.stringify(Object.values(variables).filter((v) => typeof v === "number"))}`;

const codeOf = (answer: GraphqlAnswer, code: string) =>
  answer.errors?.some((e) => e?.extensions?.code === code) ?? false;

/**
 * One Admin GraphQL query, sent when the shop's bucket can pay for it. Returns the answer (errors other than
 * throttling are the caller's); throws MaxCostExceeded when the query is over the single-query limit.
 */
export async function budgetedQuery(
  deps: BudgetedDeps,
  shop: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<GraphqlAnswer> {
  const budget = deps.budget ?? sharedAdminBudget;
  const sleep = deps.sleep ?? realSleep;
  const key = costKey(query, variables);
  const waited = (ms: number) => {
    adminThrottleWaitSeconds.series().inc(ms / 1000);
    return sleep(ms);
  };
  for (let attempt = 0; ; attempt++) {
    const wait = budget.waitMs(shop, budget.lastRequested(key), deps.now().getTime());
    if (wait > 0) await waited(Math.min(wait, 20_000));
    const answer = ((await deps.adminGraphql(shop, query, variables)) ?? {}) as GraphqlAnswer;
    const cost = answer.extensions?.cost;
    budget.observe(shop, key, cost, deps.now().getTime());
    if (codeOf(answer, "MAX_COST_EXCEEDED")) throw new MaxCostExceeded();
    if (!codeOf(answer, "THROTTLED")) return answer;
    adminThrottled.series().inc();
    if (attempt >= MAX_THROTTLED_RETRIES) throw new Error("Shopify's Admin API stayed busy (throttled)");
    // Throttled with no status to go by: a second's worth of the standard restore rate.
    if (!cost?.throttleStatus) await waited(1_000 * (attempt + 1));
  }
}

/** A shopper is waiting: at most this long for the shop's bucket to hold what a query asks for. */
const SHOPPER_MAX_WAIT_MS = 2_000;
/** What a query not seen yet is taken to ask for (Shopify answers with its real cost, kept for next time). */
const UNSEEN_QUERY_COST = 50;

/**
 * The Admin API for calls made on a shopper's behalf (Continue cart's lookups, the account page's URL, the name
 * fetched at connect): through the same per-shop view of the bucket as the worker's queries, so a shopper's
 * spend is counted and paced like the app's own. Sent when the bucket can pay within SHOPPER_MAX_WAIT_MS, else
 * AdminApiBusy is thrown (nothing sent; the shopper is asked to retry), never a wait behind a backfill. A
 * THROTTLED answer is returned as it is: the caller's error, not a retry loop with a shopper waiting.
 */
export function forShopper(
  adminGraphql: AdminGraphql,
  deps: { budget?: AdminCostBudget; now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): AdminGraphql {
  const budget = deps.budget ?? sharedAdminBudget;
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? realSleep;
  return async (shop, query, variables) => {
    const key = costKey(query, variables);
    const known = budget.lastRequested(key);
    const cost = Number.isFinite(known) ? known : UNSEEN_QUERY_COST;
    const wait = budget.waitMs(shop, cost, now());
    if (wait > SHOPPER_MAX_WAIT_MS) throw new AdminApiBusy(wait);
    if (wait > 0) await sleep(wait);
    budget.spend(shop, cost, now());
    const answer = ((await adminGraphql(shop, query, variables)) ?? {}) as GraphqlAnswer;
    budget.observe(shop, key, answer.extensions?.cost, now());
    return answer;
  };
}
