// Backfills at launch scale through one of Shopify's bulk query operations per shop (docs/decisions/0011): a
// BulkRun claims the shop's bulk backfills, asks Shopify for every order since their earliest window start
// (bulkOperationRunQuery, which answers at once), waits for the operation to end (the bulk_operations/finish
// webhook wakes its job; polling every BULK_POLL_MS is the fallback when that webhook never arrives), then reads
// the result file as a stream (bulk-file.server.ts) and queues each order of a backfilled customer as it completes;
// other customers' orders are dropped as they are read. The run's state is in its row, so a restarted worker goes
// on from where it was (polling the same operation, or reading the file again past the orders it queued).
// A run that fails (FAILED, CANCELED, EXPIRED, a result URL that no longer answers, a damaged file) runs again,
// up to BULK_MAX_RUNS times; its backfills show why.
// One file: the steps of one state machine (start, look, read, finish, run again) over one BulkRun row, each moving
// it under the same lease; split, every step would import the others' transitions.
import { Prisma, type BulkRun, type Job, type PrismaClient } from "@prisma/client";
import type { BackfillProblem } from "./reasons";
import { errorMessage } from "../lib/errors";
import { budgetedQuery, type BudgetedDeps } from "../shopify/admin-cost-budget.server";
import { queueOrders, type OrderToQueue } from "./backfill-orders.server";
import type { GqlOrder } from "./backfill-queries.server";
import { BulkFileProblem, joinBulkFile, jsonlLines, scanBulkFile, type KeepOrder } from "./bulk-file.server";
import {
  BULK_OPERATION_QUERY,
  BULK_RUN_MUTATION,
  bulkOrdersQuery,
  type BulkOperationAnswer,
  type BulkOperationNode,
  type BulkRunAnswer,
} from "./bulk-queries.server";
import { DEFAULT_LEASE_MS, enqueueJob } from "./queue.server";

export const BULK_JOB_KIND = "bulk_backfill" as const;
/** Backfills waiting to start in one shop that make it a launch (one bulk operation instead of paged queries). */
export const BULK_MIN_BACKFILLS = 3;
/** A paged backfill whose first page counts more orders than this moves to the bulk path. */
export const LARGE_BACKFILL_ORDERS = 500;
/** A new run waits this long for the rest of a launch's backfills to join it. */
export const BULK_GATHER_MS = 2_000;
/** Polling when the finish webhook has not come (Shopify's guide: the webhook, or poll the operation). */
export const BULK_POLL_MS = 60_000;
/** Waiting for a free slot when the shop already runs the most bulk queries Shopify allows. */
export const BULK_BUSY_RETRY_MS = 30_000;
export const BULK_MAX_RUNS = 3;
/** A batch's transaction may wait on a busy database longer than Prisma's 5 s default before it gives up. */
const TX = { timeout: 60_000, maxWait: 30_000 };
/** Orders queued per transaction while the file is read. */
const QUEUE_BATCH = 25;

interface BulkJobPayload {
  runId: string;
}

export interface BulkDeps extends BudgetedDeps {
  /** Reads the result file (the global fetch by default). */
  fetch?: typeof fetch;
}

/** What the job does next: run again at `at` (waiting on Shopify), or nothing (done). */
export type BulkStep = { again: Date; why: string } | null;

/** The shop's run that has not started an operation yet, created (with its job) when there is none. */
export async function ensureWaitingRun(tx: Prisma.TransactionClient, shop: string, now: Date): Promise<string> {
  const waiting = await tx.bulkRun.findFirst({
    where: { shop, status: "waiting", operationId: null },
    select: { id: true },
  });
  if (waiting) return waiting.id;
  return createRun(tx, shop, 1, new Date(now.getTime() + BULK_GATHER_MS));
}

async function createRun(tx: Prisma.TransactionClient, shop: string, attempt: number, runAt: Date) {
  const run = await tx.bulkRun.create({ data: { shop, attempt }, select: { id: true } });
  const payload: BulkJobPayload = { runId: run.id };
  await enqueueJob(tx, { shop, kind: BULK_JOB_KIND, payload, runAt, maxAttempts: 12 });
  return run.id;
}

/** One step of a run: start the operation, look at it, or read its result. */
export async function runBulkBackfillJob(prisma: PrismaClient, job: Job, deps: BulkDeps): Promise<BulkStep> {
  const { runId } = job.payload as unknown as BulkJobPayload;
  const run = await prisma.bulkRun.findUnique({ where: { id: runId } });
  if (!run || run.status === "done" || run.status === "failed") return null;
  if (!run.operationId) return start(prisma, run, deps);
  return look(prisma, run, job, deps);
}

async function start(prisma: PrismaClient, run: BulkRun, deps: BulkDeps): Promise<BulkStep> {
  const now = deps.now();
  // Claim the shop's bulk backfills that wait for a run (those arriving later wait for the next one).
  await prisma.backfill.updateMany({
    where: { shop: run.shop, status: "running", path: "bulk", bulkRunId: null },
    data: { bulkRunId: run.id },
  });
  const backfills = await prisma.backfill.findMany({
    where: { bulkRunId: run.id, status: "running" },
    select: { since: true, createdAt: true, days: true },
  });
  if (backfills.length === 0) {
    await prisma.bulkRun.update({ where: { id: run.id }, data: { status: "done", finishedAt: now } });
    return null;
  }
  const since = new Date(Math.min(...backfills.map((b) => windowStart(b).getTime())));
  const answer = (await budgetedQuery(deps, run.shop, BULK_RUN_MUTATION, {
    query: bulkOrdersQuery(since),
  })) as BulkRunAnswer;
  if (answer.errors?.length) throw new Error(`Shopify Admin API: ${answer.errors.map((e) => e.message).join("; ")}`);
  const result = answer.data?.bulkOperationRunQuery;
  const busy = result?.userErrors.find((e) => e.code === "LIMIT_REACHED" || e.code === "OPERATION_IN_PROGRESS");
  if (busy) {
    // The shop runs as many bulk queries as Shopify allows: this one waits its turn.
    await prisma.bulkRun.update({
      where: { id: run.id },
      data: { since, error: "Waiting for Shopify: the shop already runs the most bulk operations at a time." },
    });
    return { again: new Date(now.getTime() + BULK_BUSY_RETRY_MS), why: "bulk operation limit reached" };
  }
  if (!result?.bulkOperation)
    throw new Error(
      `Shopify refused the bulk query: ${(result?.userErrors ?? []).map((e) => e.message).join("; ") || "no operation"}`,
    );
  await prisma.bulkRun.update({
    where: { id: run.id },
    data: {
      since,
      status: "running",
      operationId: result.bulkOperation.id,
      shopifyStatus: result.bulkOperation.status,
      error: null,
    },
  });
  return { again: new Date(now.getTime() + BULK_POLL_MS), why: "waiting for the bulk operation" };
}

const windowStart = (b: { since: Date | null; createdAt: Date; days: number }) =>
  b.since ?? new Date(b.createdAt.getTime() - b.days * 86_400_000);

/** Plain words for how an operation ended without a result. */
function endedWithout(op: BulkOperationNode | null): { reason: string; problem: BackfillProblem } {
  if (!op) return { reason: "Shopify no longer knows the bulk operation.", problem: { code: "bulk_gone" } };
  if (op.status === "FAILED")
    return {
      reason: `Shopify's bulk operation failed (${String(op.errorCode ?? "no reason given").toLowerCase()}).`,
      problem: {
        code: "bulk_failed",
        ...(typeof op.errorCode === "string" ? { shopifyCode: op.errorCode.slice(0, 60) } : {}),
      },
    };
  if (op.status === "CANCELED")
    return { reason: "Shopify's bulk operation was cancelled.", problem: { code: "bulk_cancelled" } };
  return { reason: "Shopify's bulk operation result expired before it was read.", problem: { code: "bulk_expired" } };
}

async function look(prisma: PrismaClient, run: BulkRun, job: Job, deps: BulkDeps): Promise<BulkStep> {
  const now = deps.now();
  const answer = (await budgetedQuery(deps, run.shop, BULK_OPERATION_QUERY, {
    id: run.operationId,
  })) as BulkOperationAnswer;
  if (answer.errors?.length) throw new Error(`Shopify Admin API: ${answer.errors.map((e) => e.message).join("; ")}`);
  const op = answer.data?.bulkOperation ?? null;
  const objectCount = Number(op?.objectCount ?? 0);
  // CANCELING ends as CANCELED: waited for like a running one.
  if (op && (op.status === "CREATED" || op.status === "RUNNING" || op.status === "CANCELING")) {
    await prisma.bulkRun.update({
      where: { id: run.id },
      data: { shopifyStatus: op.status, objectCount: Number.isSafeInteger(objectCount) ? objectCount : 0 },
    });
    return { again: new Date(now.getTime() + BULK_POLL_MS), why: "waiting for the bulk operation" };
  }
  if (!op || op.status !== "COMPLETED") {
    const ended = endedWithout(op);
    await runAgain(prisma, run, ended.reason, ended.problem, now, op?.status ?? null, op?.errorCode ?? null);
    return null;
  }
  await prisma.bulkRun.update({
    where: { id: run.id },
    data: { shopifyStatus: op.status, objectCount, status: "reading" },
  });
  try {
    await read(prisma, { ...run, objectCount }, job, op.url ?? null, deps);
  } catch (error) {
    if (!(error instanceof BulkFileProblem)) throw error;
    await runAgain(prisma, run, error.message, { code: "bulk_file" }, deps.now(), op.status, null);
  }
  return null;
}

/** Opens the result file; a URL that does not answer 200 (Shopify's expire after seven days) is a file problem. */
async function open(url: string, deps: BulkDeps): Promise<AsyncIterable<string>> {
  if (!/^https:\/\//.test(url)) throw new BulkFileProblem("Shopify gave a result address that is not https.");
  let response: Response;
  try {
    response = await (deps.fetch ?? fetch)(url, { redirect: "follow" });
  } catch (error) {
    throw new BulkFileProblem(`Shopify's result file could not be downloaded (${errorMessage(error)}).`);
  }
  if (!response.ok || !response.body) {
    void response.body?.cancel().catch(() => undefined); // not awaited: a cancelled body may never settle
    throw new BulkFileProblem(
      response.status === 403 || response.status === 400 || response.status === 404
        ? "Shopify's result file had expired before it was read."
        : `Shopify's result file could not be downloaded (HTTP ${response.status}).`,
    );
  }
  return jsonlLines(response.body);
}

async function read(prisma: PrismaClient, run: BulkRun, job: Job, url: string | null, deps: BulkDeps) {
  const backfills = await prisma.backfill.findMany({
    where: { bulkRunId: run.id, status: "running" },
    select: { id: true, customerId: true, since: true, createdAt: true, days: true },
  });
  const byCustomer = new Map(backfills.map((b) => [b.customerId, { id: b.id, since: windowStart(b).getTime() }]));
  const keep: KeepOrder = ({ customerId, createdAt }) => {
    const b = customerId ? byCustomer.get(customerId) : undefined;
    return !!b && Date.parse(createdAt) >= b.since;
  };
  if (!url || run.objectCount === 0) {
    await finish(prisma, run, deps.now());
    return;
  }
  // Pass 1: the whole file checked before anything is queued.
  const scan = await scanBulkFile(await open(url, deps), { objectCount: run.objectCount, keep });
  if (run.ordersRead === 0) {
    // Each backfill's orders found, in one statement (a launch has a thousand backfills).
    const found: Record<string, number> = {};
    for (const [customerId, count] of scan.foundByCustomer) {
      const b = byCustomer.get(customerId);
      if (b) found[b.id] = count;
    }
    await prisma.$executeRaw`
      UPDATE "Backfill" AS b SET total = (e.value)::int
      FROM jsonb_each_text(${JSON.stringify(found)}::jsonb) AS e WHERE b.id = e.key`;
    await prisma.bulkRun.update({ where: { id: run.id }, data: { ordersFound: scan.expected.size } });
  }
  // Pass 2: orders queued as they complete, past those a previous read of this run queued already.
  let skip = run.ordersRead;
  let batch: GqlOrder[] = [];
  for await (const order of joinBulkFile(await open(url, deps), scan)) {
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    batch.push(order);
    if (batch.length >= QUEUE_BATCH) {
      await queueBatch(prisma, run, job, batch, byCustomer, deps.now());
      batch = [];
    }
  }
  if (batch.length) await queueBatch(prisma, run, job, batch, byCustomer, deps.now());
  await finish(prisma, run, deps.now());
}

/**
 * Queues complete orders in one transaction, with the run's resume point. Each customer's Backfill row is locked
 * first (a customers/redact deletes it first too) and the customer must still be connected: one who disconnected
 * or was erased while the file was read gets nothing more queued. Each batch also renews the job's lease (a large
 * file takes longer than one lease): a worker that lost it stops, so two never read the same run.
 */
async function queueBatch(
  prisma: PrismaClient,
  run: BulkRun,
  job: Job,
  orders: GqlOrder[],
  byCustomer: Map<string, { id: string }>,
  now: Date,
) {
  const customerOf = (o: GqlOrder) => /\/(\d+)$/.exec(o.customer?.id ?? "")?.[1] ?? "";
  const ids = [...new Set(orders.map(customerOf))].map((c) => byCustomer.get(c)?.id).filter((id): id is string => !!id);
  await prisma.$transaction(async (tx) => {
    const held = await tx.job.updateMany({
      where: { id: job.id, status: "running", leasedBy: job.leasedBy },
      data: { leaseUntil: new Date(now.getTime() + DEFAULT_LEASE_MS) },
    });
    if (held.count !== 1) throw new Error("the bulk backfill's job lease was lost while its file was read");
    const alive = await tx.$queryRaw<{ id: string; customerId: string }[]>`
      SELECT id, "customerId" FROM "Backfill" WHERE id = ANY(${ids}) AND status = 'running' FOR UPDATE`;
    const grants = await tx.customerGrant.findMany({
      where: { shop: run.shop, customerId: { in: alive.map((a) => a.customerId) } },
      select: { customerId: true },
    });
    const connected = new Set(grants.map((g) => g.customerId));
    const queued = new Map<string, number>();
    const aliveBy = new Map(alive.map((a) => [a.customerId, a.id]));
    const toQueue: OrderToQueue[] = [];
    for (const order of orders) {
      const customerId = customerOf(order);
      const backfillId = aliveBy.get(customerId);
      if (!backfillId || !connected.has(customerId)) continue;
      toQueue.push({ customerId, node: order });
      queued.set(backfillId, (queued.get(backfillId) ?? 0) + 1);
    }
    await queueOrders(tx, run.shop, toQueue, now);
    for (const [id, n] of queued) await tx.backfill.update({ where: { id }, data: { queued: { increment: n } } });
    for (const a of alive)
      if (!connected.has(a.customerId))
        await tx.backfill.update({
          where: { id: a.id },
          data: {
            status: "failed",
            finishedAt: now,
            error: "The customer disconnected while their past orders were read; nothing more was queued.",
            errorDetails: { code: "customer_disconnected" } satisfies BackfillProblem,
          },
        });
    await tx.bulkRun.update({ where: { id: run.id }, data: { ordersRead: { increment: orders.length } } });
  }, TX);
}

async function finish(prisma: PrismaClient, run: BulkRun, now: Date) {
  await prisma.$transaction(async (tx) => {
    await tx.backfill.updateMany({
      where: { bulkRunId: run.id, status: "running" },
      data: { status: "done", finishedAt: now, error: null, errorDetails: Prisma.DbNull },
    });
    await tx.bulkRun.update({
      where: { id: run.id },
      data: { status: "done", finishedAt: now, error: null },
    });
  });
}

/** The run failed: its backfills wait for a new run (up to BULK_MAX_RUNS), or fail with the reason. */
async function runAgain(
  prisma: PrismaClient,
  run: BulkRun,
  reason: string,
  problem: BackfillProblem,
  now: Date,
  shopifyStatus: string | null,
  errorCode: string | null,
) {
  await prisma.$transaction(async (tx) => {
    await tx.bulkRun.update({
      where: { id: run.id },
      data: { status: "failed", error: reason, finishedAt: now, shopifyStatus, errorCode },
    });
    if (run.attempt < BULK_MAX_RUNS) {
      await tx.backfill.updateMany({
        where: { bulkRunId: run.id, status: "running" },
        data: { bulkRunId: null, error: `${reason} Running it again.`, errorDetails: { ...problem, again: true } },
      });
      const waiting = await tx.bulkRun.findFirst({
        where: { shop: run.shop, status: "waiting", operationId: null },
        select: { id: true },
      });
      if (!waiting) await createRun(tx, run.shop, run.attempt + 1, new Date(now.getTime() + 10_000 * run.attempt));
    } else {
      await tx.backfill.updateMany({
        where: { bulkRunId: run.id, status: "running" },
        data: { status: "failed", finishedAt: now, error: reason, errorDetails: problem },
      });
    }
  });
}

/** bulk_operations/finish: the run of that operation looks at it now instead of at its next poll. */
export async function wakeBulkRun(prisma: PrismaClient, shop: string, operationId: string, now: Date) {
  const run = await prisma.bulkRun.findFirst({ where: { shop, operationId }, select: { id: true } });
  if (!run) return false;
  const woken = await prisma.$executeRaw`
    UPDATE "Job" SET "runAt" = ${now}
    WHERE shop = ${shop} AND kind = ${BULK_JOB_KIND} AND status = 'queued' AND payload->>'runId' = ${run.id}
      AND "runAt" > ${now}`;
  return woken > 0;
}
