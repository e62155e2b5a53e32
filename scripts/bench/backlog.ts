// A large queue in a few statements (the bench's backlogs, the lease-at-scale test), and the lease's plan read
// back: how many "Job" rows one lease touched, which does not depend on the machine's load.
import { Prisma, type PrismaClient } from "@prisma/client";
import { ts } from "../../app/db/sql.server";
import { LEASE_PLANNER_SETTINGS, leaseStatement, type LeaseOptions } from "../../app/sync/queue.server";

export interface Backlog {
  /** Jobs to queue. */
  count: number;
  /** Job i belongs to shop `${prefix}-${i % shops}.myshopify.com`. */
  shops: number;
  prefix: string;
  /** Consecutive jobs of one shop share an order, this many per order (order first, then its shipments). */
  jobsPerOrder?: number;
  runAt?: Date;
  /** SQL for each job's payload, given `i`; '{}' by default. */
  payloadSql?: Prisma.Sql;
}

export const backlogShop = (prefix: string, n: number) => `${prefix}-${n}.myshopify.com`;

/** Queues `count` jobs in chunks of 50,000 (one INSERT … SELECT each), seq in the order of i. */
export async function fillQueue(prisma: PrismaClient, backlog: Backlog): Promise<void> {
  const per = backlog.jobsPerOrder ?? 1;
  const at = ts(backlog.runAt ?? new Date());
  const payload = backlog.payloadSql ?? Prisma.sql`'{}'::jsonb`;
  for (let from = 0; from < backlog.count; from += 50_000) {
    const to = Math.min(backlog.count, from + 50_000) - 1;
    // i → shop i % shops, its k-th job (i / shops); orders group `per` consecutive jobs of a shop.
    await prisma.$executeRaw`
      INSERT INTO "Job" (id, shop, kind, "orderKey", payload, "runAt", "createdAt", "updatedAt")
      SELECT gen_random_uuid()::text, ${backlog.prefix} || '-' || (i % ${backlog.shops}) || '.myshopify.com',
        CASE WHEN (i / ${backlog.shops}) % ${per} = 0 THEN 'order' ELSE 'shipment' END,
        'order:' || ${backlog.prefix} || '-' || (i % ${backlog.shops}) || '-' || ((i / ${backlog.shops}) / ${per}),
        ${payload}, ${at}, ${at}, ${at}
      FROM generate_series(${from}::int, ${to}::int) AS i ORDER BY i`;
  }
}

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows of "Job" that the plan's scans returned or filtered out, over all their loops. */
export function jobRowsTouched(node: PlanNode): number {
  const own =
    node["Relation Name"] === "Job"
      ? ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) * (node["Actual Loops"] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + jobRowsTouched(child), 0);
}

export interface LeasePlan {
  /** The plan, as EXPLAIN (ANALYZE, FORMAT JSON) gave it. */
  plan: { Plan: PlanNode; "Execution Time": number };
  jobRows: number;
  leased: number;
  executionMs: number;
}

/** Runs one lease under EXPLAIN ANALYZE (it really leases). */
export async function explainLease(prisma: PrismaClient, options: LeaseOptions): Promise<LeasePlan> {
  const [, rows] = await prisma.$transaction([
    prisma.$queryRaw(LEASE_PLANNER_SETTINGS),
    prisma.$queryRaw<{ "QUERY PLAN": unknown }[]>`EXPLAIN (ANALYZE, FORMAT JSON) ${leaseStatement(options)}`,
  ]);
  const raw = rows[0]["QUERY PLAN"];
  const [plan] = (typeof raw === "string" ? JSON.parse(raw) : raw) as LeasePlan["plan"][];
  return { plan, jobRows: jobRowsTouched(plan.Plan), leased: plan.Plan["Actual Rows"] ?? 0, executionMs: plan["Execution Time"] };
}

/** The same lease as text (EXPLAIN ANALYZE's usual output), for the README. */
export async function explainLeaseText(prisma: PrismaClient, options: LeaseOptions): Promise<string> {
  const [, rows] = await prisma.$transaction([
    prisma.$queryRaw(LEASE_PLANNER_SETTINGS),
    prisma.$queryRaw<{ "QUERY PLAN": string }[]>`EXPLAIN (ANALYZE, COSTS OFF) ${leaseStatement(options)}`,
  ]);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}
