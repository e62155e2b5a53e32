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

export interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows of `relation` (every table when absent) that the plan's scans returned or filtered out, over all their loops. */
export function rowsTouched(node: PlanNode, relation?: string): number {
  const own =
    node["Relation Name"] && (relation === undefined || node["Relation Name"] === relation)
      ? ((node["Actual Rows"] ?? 0) +
          (node["Rows Removed by Filter"] ?? 0) +
          (node["Rows Removed by Index Recheck"] ?? 0)) *
        (node["Actual Loops"] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsTouched(child, relation), 0);
}

/** Rows of "Job" that the plan's scans returned or filtered out, over all their loops. */
export const jobRowsTouched = (node: PlanNode) => rowsTouched(node, "Job");

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
  return {
    plan,
    jobRows: jobRowsTouched(plan.Plan),
    leased: plan.Plan["Actual Rows"] ?? 0,
    executionMs: plan["Execution Time"],
  };
}

/** The same lease as text (EXPLAIN ANALYZE's usual output), for docs/performance.md. */
export async function explainLeaseText(prisma: PrismaClient, options: LeaseOptions): Promise<string> {
  const [, rows] = await prisma.$transaction([
    prisma.$queryRaw(LEASE_PLANNER_SETTINGS),
    prisma.$queryRaw<{ "QUERY PLAN": string }[]>`EXPLAIN (ANALYZE, COSTS OFF) ${leaseStatement(options)}`,
  ]);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

export interface ImportBacklog {
  /** Order imports to queue, each with its delivery (minimised orders/create payload) and pending record. */
  count: number;
  shops: number;
  prefix: string;
  /** Order ids are 6,000,000,000,000 + from + i: give each fill of one database its own range. */
  from: number;
  customerId: string;
}

/** Queues real order imports (what the intake would have written for signed orders/create deliveries), in bulk. */
export async function fillImports(prisma: PrismaClient, backlog: ImportBacklog): Promise<void> {
  const at = ts(new Date());
  for (let start = 0; start < backlog.count; start += 25_000) {
    const lo = backlog.from + start;
    const hi = backlog.from + Math.min(backlog.count, start + 25_000) - 1;
    const shop = Prisma.sql`${backlog.prefix} || '-' || (i % ${backlog.shops}) || '.myshopify.com'`;
    const orderId = Prisma.sql`(6000000000000 + i)`;
    await prisma.$executeRaw`
      INSERT INTO "WebhookDelivery" (id, shop, topic, "eventId", payload, "receivedAt")
      SELECT 'bd-' || i, ${shop}, 'orders/create', 'be-' || i, jsonb_build_object(
          'id', ${orderId}, 'created_at', '2026-11-20T10:15:00-05:00', 'updated_at', '2026-11-20T10:15:03-05:00', 'currency', 'USD',
          'customer', jsonb_build_object('id', ${Number(backlog.customerId)}::bigint, 'display_name', NULL),
          'line_items', jsonb_build_array(
            jsonb_build_object('id', ${orderId} * 2, 'title', 'Blue mug', 'quantity', 1, 'current_quantity', 1, 'sku', 'MUG-1', 'product_id', 632910392),
            jsonb_build_object('id', ${orderId} * 2 + 1, 'title', 'Tea', 'quantity', 2, 'current_quantity', 2, 'sku', 'TEA-1', 'product_id', 632910393))),
        ${at}
      FROM generate_series(${lo}::int, ${hi}::int) AS i`;
    await prisma.$executeRaw`
      INSERT INTO "SyncRecord" (id, shop, kind, "externalId", "orderId", state, "createdAt", "updatedAt")
      SELECT 'br-' || i, ${shop}, 'order', ${orderId}::text, ${orderId}::text, 'pending', ${at}, ${at}
      FROM generate_series(${lo}::int, ${hi}::int) AS i`;
    await prisma.$executeRaw`
      INSERT INTO "Job" (id, shop, kind, "orderKey", payload, "deliveryId", "recordId", "runAt", "createdAt", "updatedAt")
      SELECT 'bj-' || i, ${shop}, 'order', 'order:' || ${orderId}, '{}'::jsonb, 'bd-' || i, 'br-' || i, ${at}, ${at}, ${at}
      FROM generate_series(${lo}::int, ${hi}::int) AS i ORDER BY i`;
  }
}
