// Admin API calls that keep to Shopify's calculated query cost: each answer's `extensions.cost.throttleStatus` says
// how full the shop's bucket is (kept here per shop); before the next query the caller waits until the bucket holds
// what that query last asked for. A THROTTLED answer waits for the points and asks again, so throttling never
// surfaces; MAX_COST_EXCEEDED is thrown as its own error for the caller to split the query (smaller pages).
//
// On PostgreSQL every process (the worker's backfill, the web processes' shopper queries) draws on one ledger per
// shop, the service rate's own primitive (app/sync/shared-rate.server.ts, docs/decisions/0013): a query takes its points
// from it before it is sent, what an answer says (the bucket's level, the unused part of the requested cost) is
// taught back, so processes together spend what Shopify restores instead of each the whole of it. With the
// database away, the process's own view as before.
import { adminQueryCost, adminThrottled, adminThrottleWaitSeconds } from "../lib/metrics.server";
import { realSleep } from "../lib/sleep";
import type { AdminGraphql } from "./admin-api.server";
import { AdminApiBusy } from "./admin-api-busy";

/**
 * The ledger every process shares on PostgreSQL: what this budget asks of app/sync/shared-rate.server.ts's store
 * (its SharedRateStore fits), named here so the Shopify adapter does not import the sync area.
 */
export interface CostLedger {
  lease(
    key: string,
    request: {
      want: number;
      headroom: number;
      policy?: { capacity: number; perSecond: number };
      floorLevel?: number;
      hold?: boolean;
      whole?: boolean;
      held?: number;
      released?: number;
      arrived?: number;
    },
  ): Promise<{ granted: number; policy?: { capacity: number; perSecond: number }; level: number }>;
}

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

  /** `shared`: the ledger every process draws on (PostgreSQL); without it, this process's view only. */
  constructor(private shared?: CostLedger) {}

  /** From now on, draw on the ledger every process shares (called once by the process's wiring). */
  share(store: CostLedger) {
    this.shared = store;
  }

  /**
   * Takes `cost` points of the shop's bucket from the shared ledger, all at once when they are there, waiting for
   * them as they restore (at most `maxWaitMs` a wait: then the wait is returned). Returns the points taken, or
   * undefined without a shared ledger or with the database away (the caller goes by this process's view).
   *
   * A query whose cost is not known yet (none of its kind answered in this process), and any query while no answer
   * has said the bucket's size, goes at once, held at the single-query maximum until its answer (settle): it learns
   * what the ledger needs. Sent uncounted, such a query reached Shopify late, after the other process had learned
   * the size and spent the bucket to its floor, and was answered THROTTLED.
   */
  async reserve(
    shop: string,
    cost: number | (() => number),
    sleep: (ms: number) => Promise<void>,
    maxWaitMs = Number.POSITIVE_INFINITY,
  ): Promise<{ taken: number } | { busyMs: number } | undefined> {
    const store = this.shared;
    if (!store) return undefined;
    const key = ledgerKey(shop);
    const holdMost = () => store.lease(key, { want: 0, headroom: 0, held: SINGLE_QUERY_MAX_COST });
    try {
      for (;;) {
        // Read again after every wait: a query sent meanwhile by this process may have answered with the cost.
        const c = typeof cost === "function" ? cost() : cost;
        if (!Number.isFinite(c)) {
          await holdMost();
          return { taken: SINGLE_QUERY_MAX_COST };
        }
        const need = Math.max(1, Math.ceil(c));
        // All or nothing: waiters each holding part of what they need could hold the whole bucket between them
        // and wait for ever (held points do not restore).
        const lease = await store.lease(key, { want: need, headroom: 0, hold: true, whole: true });
        if (!lease.policy) {
          if (!(await holdMost()).policy) return { taken: SINGLE_QUERY_MAX_COST };
          // Another process learned the size meanwhile: this query waits its turn like any other.
          await store.lease(key, { want: 0, headroom: 0, released: SINGLE_QUERY_MAX_COST });
          continue;
        }
        if (lease.granted > 0) return { taken: lease.granted };
        const { capacity, perSecond } = lease.policy;
        // More than the bucket holds can never be granted: it goes held, and Shopify's answer will say.
        if (need > capacity) {
          await holdMost();
          return { taken: SINGLE_QUERY_MAX_COST };
        }
        const waitMs = Math.max(10, ((lease.level + need - capacity) / Math.max(1, perSecond)) * 1000);
        if (waitMs > maxWaitMs) return { busyMs: Math.ceil(waitMs) };
        adminThrottleWaitSeconds.series().inc(waitMs / 1000);
        // Asked again within a second: the level falls faster than it restores when queries held in flight answer
        // (a query sent before anyone knew the size holds the single-query maximum: 11 s of waiting at 100 a second).
        await sleep(Math.min(waitMs, 1_000));
      }
    } catch {
      // The database slow or away: this process's own view (never no pacing at all).
      return undefined;
    }
  }

  /**
   * Teaches the shared ledger what an answer said (the bucket's size and level) and gives back the points the query
   * held in flight: what it cost joins the level.
   */
  async settle(shop: string, taken: number, cost: QueryCost | undefined): Promise<void> {
    const store = this.shared;
    if (!store) return;
    const s = validStatus(cost?.throttleStatus);
    const actual = typeof cost?.actualQueryCost === "number" ? cost.actualQueryCost : 0;
    try {
      await store.lease(ledgerKey(shop), {
        want: 0,
        headroom: 0,
        policy: s ? { capacity: s.maximumAvailable, perSecond: s.restoreRate } : undefined,
        floorLevel: s ? Math.max(0, s.maximumAvailable - s.currentlyAvailable) : undefined,
        released: taken,
        arrived: actual,
      });
    } catch {
      // The answer is taught by the next one.
    }
  }

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
    const s = validStatus(cost.throttleStatus);
    if (s) {
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

const ledgerKey = (shop: string) => `shopify-admin:${shop}`;

/** Shopify refuses any query whose requested cost is over this (MAX_COST_EXCEEDED): no query spends more. */
const SINGLE_QUERY_MAX_COST = 1000;

function validStatus(s: ThrottleStatus | undefined): ThrottleStatus | undefined {
  if (!s || typeof s !== "object") return undefined;
  const { maximumAvailable, currentlyAvailable, restoreRate } = s;
  const ok = [maximumAvailable, currentlyAvailable, restoreRate].every(
    (n) => typeof n === "number" && Number.isFinite(n) && n >= 0,
  );
  return ok && maximumAvailable > 0 ? s : undefined;
}

/** The process's view of every shop's bucket (the worker's jobs and the shoppers' queries share it). */
export const sharedAdminBudget = new AdminCostBudget();

export interface BudgetedDeps {
  adminGraphql: AdminGraphql;
  now: () => Date;
  sleep?: (ms: number) => Promise<void>;
  budget?: AdminCostBudget;
}

const MAX_THROTTLED_RETRIES = 8;

/** Sends a query holding `taken` points; a query that never got an answer gives them back (the next answer's level corrects). */
async function sentWithin(
  budget: AdminCostBudget,
  shop: string,
  taken: number | undefined,
  send: () => Promise<unknown>,
): Promise<GraphqlAnswer | undefined> {
  try {
    return (await send()) as GraphqlAnswer | undefined;
  } catch (error) {
    if (taken) await budget.settle(shop, taken, undefined);
    throw error;
  }
}

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
    const reserved = await budget.reserve(shop, () => budget.lastRequested(key), sleep);
    const taken = reserved && "taken" in reserved ? reserved.taken : undefined;
    if (taken === undefined) {
      const wait = budget.waitMs(shop, budget.lastRequested(key), deps.now().getTime());
      if (wait > 0) await waited(Math.min(wait, 20_000));
    }
    const answer = (await sentWithin(budget, shop, taken, () => deps.adminGraphql(shop, query, variables))) ?? {};
    const cost = answer.extensions?.cost;
    budget.observe(shop, key, cost, deps.now().getTime());
    if (taken !== undefined) await budget.settle(shop, taken, cost);
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
/**
 * What a query not seen yet is taken to ask for by this process's own view, with no shared ledger (Shopify answers
 * with its real cost, kept for next time).
 */
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
    // The ledger holds a query not seen yet at the single-query maximum (reserve); the guess is for this
    // process's own view only.
    const reserved = await budget.reserve(shop, known, sleep, SHOPPER_MAX_WAIT_MS);
    if (reserved && "busyMs" in reserved) throw new AdminApiBusy(reserved.busyMs);
    if (!reserved) {
      const wait = budget.waitMs(shop, cost, now());
      if (wait > SHOPPER_MAX_WAIT_MS) throw new AdminApiBusy(wait);
      if (wait > 0) await sleep(wait);
      budget.spend(shop, cost, now());
    }
    const answer = (await sentWithin(budget, shop, reserved?.taken, () => adminGraphql(shop, query, variables))) ?? {};
    budget.observe(shop, key, answer.extensions?.cost, now());
    if (reserved) await budget.settle(shop, reserved.taken, answer.extensions?.cost);
    return answer;
  };
}
