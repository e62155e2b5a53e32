// The import's outcome statement (job done, record, attempt, the order's waiting shipments) reads a handful of rows
// whatever the shop has queued or recorded: it finds the order's shipments by (shop, order). Without statistics
// (PGlite never has any; PostgreSQL after a bulk load) the planner used to walk the shop's every record without an
// order name, or every queued job, so an import's cost grew with the backlog (docs/performance.md). Runs on PGlite
// and PostgreSQL.
import { Prisma } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseJobs } from "~/sync/queue.server";
import { importedStatement } from "~/sync/record-state.server";
import { attemptInsert } from "~/sync/attempt-log.server";
import { orderKeyOf } from "~/sync/mapping.server";
import { fillImports, rowsTouched, type PlanNode } from "../../scripts/bench/backlog";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";

const backends = usingPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);
const QUEUED = 30_000;

describe.each(backends)("an import's outcome at %s with 30,000 imports of one shop queued", (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    await fillImports(db.prisma, { count: QUEUED, shops: 1, prefix: "outcome", from: 0, customerId: "7000000001" });
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it("reads a handful of rows, not the shop's records or queue", async () => {
    const [job] = await leaseJobs(db.prisma, { workerId: "plan", limit: 1 });
    const orderId = String((job.deliveryPayload as { id: number | string }).id);
    const outcome = { ok: true, replayed: false, status: 201, data: { status: "imported" } } as Parameters<
      typeof attemptInsert
    >[2];
    const statement = importedStatement(
      job,
      job.recordId!,
      {
        state: "imported",
        sentHash: "s",
        contentHash: "c",
        workspaceId: "ws-acme",
        customerId: "7000000001",
        redactions: 0,
        serviceId: null,
        serviceStatus: "imported",
        attempts: 1,
      },
      {
        attempt: attemptInsert(job, job.recordId!, outcome, new Date()),
        order: { orderId, orderKey: orderKeyOf(orderId) },
      },
      new Date(),
    );
    const [row] = await db.prisma.$queryRaw<{ "QUERY PLAN": unknown }[]>(
      Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`,
    );
    const raw = row["QUERY PLAN"];
    const [plan] = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
    expect(rowsTouched(plan.Plan)).toBeLessThan(50);
    // and it did what it says: the job is done, the record imported
    expect(await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ status: "done" });
    expect(await db.prisma.syncRecord.findUniqueOrThrow({ where: { id: job.recordId! } })).toMatchObject({
      state: "imported",
      workspaceId: "ws-acme",
    });
  });
});
