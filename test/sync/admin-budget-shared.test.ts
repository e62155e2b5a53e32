// One Admin API cost bucket per shop across processes (issue 39): Shopify counts one bucket per shop and app
// (1,000 points, 100 restored a second), drawn on by the worker's backfill and by every web process's shopper
// queries. Two processes (each its own connection pool and budget) against the Admin API stand-in, which prices and
// throttles by Shopify's rules: together they spend what the bucket restores, and no answer comes back THROTTLED.
import { describe, expect, it } from "vitest";
import { costed, QueryCostLimiter } from "../../dev/admin-api/cost";
import {
  AdminCostBudget,
  budgetedQuery,
  forShopper,
  type CostLedger,
  type GraphqlAnswer,
} from "~/shopify/admin-cost-budget.server";
import { postgresRateStore } from "~/sync/shared-rate.server";
import { AdminApiBusy } from "~/shopify/admin-api-busy";
import { postgresForProcesses, usingPostgres } from "../helpers/db";

// Requested: 2 + 100 (a connection of 100); the stand-in answers 40 nodes, so each costs 42 in the end.
const QUERY = "query RecentOrders($first: Int!) { orders(first: $first) { nodes { id } } }";
const VARIABLES = { first: 100 };

describe.runIf(usingPostgres())("Shopify's Admin API cost bucket shared through PostgreSQL", () => {
  const pg = postgresForProcesses();
  const connect = pg.connect;

  /** The web process's first `n` ledger answers reach it `ms` late (a loaded machine: its pool, its event loop). */
  const late = (ledger: CostLedger, n: number, ms: number): CostLedger => {
    let calls = 0;
    return {
      async lease(key, request) {
        const answer = await ledger.lease(key, request);
        if (calls++ < n) await new Promise((r) => setTimeout(r, ms));
        return answer;
      },
    };
  };

  const spendTogether = async (shop: string, options: { webLateMs?: number; backfills?: number } = {}) => {
    const limiter = new QueryCostLimiter();
    const answers: GraphqlAnswer[] = [];
    const adminGraphql = async (shop: string, query: string, variables: Record<string, unknown>) => {
      const request = new Request(`https://${shop}/admin/api/2025-10/graphql.json`, { method: "POST" });
      const response = await costed(limiter, { request, query, variables }, () => ({
        data: { orders: { nodes: Array.from({ length: 40 }, (_, i) => ({ id: `gid://shopify/Order/${i}` })) } },
      }));
      const answer = (await response.json()) as GraphqlAnswer;
      answers.push(answer);
      return answer;
    };
    const [one, two] = [await connect(), await connect()];
    const worker = new AdminCostBudget(postgresRateStore(one.prisma, "worker-process"));
    const webLedger = postgresRateStore(two.prisma, "web-process");
    const web = new AdminCostBudget(options.webLateMs ? late(webLedger, 3, options.webLateMs) : webLedger);
    const shopper = forShopper(adminGraphql, { budget: web });
    const now = () => new Date();

    const started = Date.now();
    const until = started + 4_000;
    let busy = 0;
    // The worker: three backfill jobs at once; the web process: three shoppers clicking again and again.
    const backfill = async () => {
      while (Date.now() < until) await budgetedQuery({ adminGraphql, now, budget: worker }, shop, QUERY, VARIABLES);
    };
    const clicks = async () => {
      while (Date.now() < until) {
        try {
          await shopper(shop, QUERY, VARIABLES);
        } catch (error) {
          if (!(error instanceof AdminApiBusy)) throw error;
          busy += 1; // refused at once, nothing sent: the shopper is asked to retry
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const jobs = Array.from({ length: options.backfills ?? 3 }, () => backfill());
    await Promise.all([...jobs, clicks(), clicks(), clicks()]);
    const seconds = (Date.now() - started) / 1000;

    // Each believing it held the whole bucket, the two would overdraw it and Shopify would refuse queries.
    const throttled = answers.filter((a) => a.errors?.some((e) => e.extensions?.code === "THROTTLED"));
    expect(throttled).toHaveLength(0);
    expect(limiter.throttled).toBe(0);
    // Within what Shopify restores: the full bucket at the start and 100 a second since...
    const restorable = limiter.maximumAvailable + seconds * limiter.restoreRate;
    expect(limiter.spent).toBeLessThanOrEqual(restorable);
    // ...and most of it used (the shared ledger is not a slower budget): both processes got their turns.
    expect(limiter.spent).toBeGreaterThan(restorable * 0.6);
    const sent = answers.length;
    expect(sent).toBeGreaterThan(20);
    console.info(
      `admin cost shared: ${sent} queries in ${seconds.toFixed(1)} s, ${limiter.spent} points of ${restorable.toFixed(0)} restorable, ${busy} shopper refusals`,
    );
  };

  it("the worker's backfill and another process's shopper queries spend one bucket: nothing THROTTLED", async () => {
    await spendTogether("shop-a.myshopify.com");
  }, 30_000);

  // Before any answer has said the bucket's size, a query is in no ledger: one such query that reached Shopify after
  // the other process had learned the size and spent the bucket to its floor was answered THROTTLED (a CI run).
  it("a query sent before anyone knows the bucket's size is counted at the most it may cost, so a process answered late overdraws nothing", async () => {
    await spendTogether("shop-b.myshopify.com", { webLateMs: 800 }); // a bucket nobody has heard of yet
  }, 30_000);

  // Twelve jobs waiting on a drained bucket: had each held the part of its 102 points that had restored, ten of
  // them could hold the whole bucket between them and wait for ever (points held do not restore).
  it("many jobs waiting on a drained bucket take their points whole: none waits for ever", async () => {
    await spendTogether("shop-c.myshopify.com", { backfills: 12 });
  }, 30_000);
});
