// When a customer connects: their orders of the last N days (ShopSettings.backfillDays, default 60) are fetched
// from the Admin GraphQL API, one page per job, and queued for import like webhook orders (the same mapper, the
// same content-derived idempotency keys, so an order that already came by webhook is not imported twice).
// Progress is the Backfill row: total (Shopify's count), queued, status. This is the runner (the Backfill row and
// the page jobs); what is asked of Shopify, and how an answer becomes the mapper's shape, is in
// backfill-queries.server.ts.
import { Prisma, type Job, type PrismaClient } from "@prisma/client";
import type { BackfillProblem } from "./reasons";
import { readSections } from "../db/shop-settings.server";
import { errorMessage } from "../lib/errors";
import type { BudgetedDeps } from "../shopify/admin-cost-budget.server";
import { BACKFILL_SIZES, fetchOrdersPage, type FetchedPage, type PageRequest } from "./backfill-queries.server";
import { queueOrders } from "./backfill-orders.server";
import { BULK_MIN_BACKFILLS, ensureWaitingRun, LARGE_BACKFILL_ORDERS } from "./bulk-backfill.server";
import { enqueueJob } from "./queue.server";
import { WorkerStopping } from "./stopping";

interface BackfillPayload extends PageRequest {
  backfillId: string;
}

/**
 * Creates the Backfill row and picks its path: paged (its own page jobs, as for one customer connecting) or bulk
 * (a share of the shop's next bulk operation, bulk-backfill.server.ts) when the shop has many backfills waiting
 * to start (a launch). A backfill already running for this customer is reused.
 */
export async function startBackfill(
  prisma: PrismaClient,
  input: { shop: string; customerId: string; days?: number; now?: Date; bulkFrom?: number },
): Promise<string> {
  const now = input.now ?? new Date();
  const running = await prisma.backfill.findFirst({
    where: { shop: input.shop, customerId: input.customerId, status: "running" },
    select: { id: true },
  });
  if (running) return running.id;
  const settings = await readSections(prisma, input.shop, "sync");
  const days = input.days ?? settings?.backfillDays ?? 60;
  const since = new Date(now.getTime() - days * 86_400_000);
  const waiting = await prisma.backfill.count({ where: waitingToStart(input.shop) });
  const bulk = waiting + 1 >= (input.bulkFrom ?? BULK_MIN_BACKFILLS);
  return prisma.$transaction(async (tx) => {
    const backfill = await tx.backfill.create({
      data: { shop: input.shop, customerId: input.customerId, days, since, path: bulk ? "bulk" : "paged" },
    });
    if (bulk) {
      // The others that have not queued a page yet join too (their page job then finds the row on the bulk path).
      await tx.backfill.updateMany({
        where: { ...waitingToStart(input.shop), path: "paged" },
        data: { path: "bulk" },
      });
      await ensureWaitingRun(tx, input.shop, now);
      return backfill.id;
    }
    const payload: BackfillPayload = {
      backfillId: backfill.id,
      customerId: input.customerId,
      since: since.toISOString(),
    };
    await enqueueJob(tx, { shop: input.shop, kind: "backfill", payload, runAt: now, maxAttempts: 8 });
    return backfill.id;
  });
}

/** Backfills of the shop that have queued nothing yet: paged ones before their first page, bulk ones before a run. */
const waitingToStart = (shop: string): Prisma.BackfillWhereInput => ({
  shop,
  status: "running",
  OR: [
    { path: "paged", queued: 0 },
    { path: "bulk", bulkRunId: null },
  ],
});

/** One page: fetch, queue its orders (and their fulfillments), then queue the next page or finish. */
export async function runBackfillJob(prisma: PrismaClient, job: Job, deps: BudgetedDeps): Promise<void> {
  const payload = job.payload as unknown as BackfillPayload;
  const row = await prisma.backfill.findUnique({ where: { id: payload.backfillId }, select: { path: true } });
  if (row?.path === "bulk") return; // moved to the shop's bulk operation: no page is asked for
  let fetched: FetchedPage;
  try {
    fetched = await fetchOrdersPage(deps, job.shop, payload);
  } catch (error) {
    if (error instanceof WorkerStopping) throw error; // not a failure: the page runs again at the next start
    // A bare network error says only "fetch failed" (undici) or "Failed to fetch": name what could not be reached.
    const unreachable = error instanceof TypeError && /fetch/i.test(error.message);
    const message = unreachable ? "Shopify's Admin API could not be reached" : errorMessage(error);
    const problem: BackfillProblem = { code: unreachable ? "fetch_unreachable" : "fetch_failed" };
    await prisma.backfill.update({
      where: { id: payload.backfillId },
      data:
        job.attempts >= job.maxAttempts
          ? {
              status: "failed",
              error: `Could not fetch past orders: ${message}`,
              errorDetails: problem,
              finishedAt: deps.now(),
            }
          : { error: `Retrying: ${message}`, errorDetails: { ...problem, retrying: true } },
    });
    throw error;
  }
  const { orders, count, sizes } = fetched;
  const now = deps.now();
  await prisma.$transaction(async (tx) => {
    // The Backfill row is locked first: a customers/redact deletes it first too, so it either waits for this page
    // (and then erases what it queued) or went before, and then nothing of the customer is written back here.
    const [alive] = await tx.$queryRaw<
      { id: string; path: string }[]
    >`SELECT id, path FROM "Backfill" WHERE id = ${payload.backfillId} FOR UPDATE`;
    if (!alive) return; // the customer was erased: this page is not queued
    if (alive.path === "bulk") return; // moved to the shop's bulk operation before its first page
    if (!payload.cursor && typeof count === "number" && count > LARGE_BACKFILL_ORDERS) {
      // One very large backfill: one bulk operation reads it faster and leaves the shop's points to shoppers.
      await tx.backfill.update({ where: { id: alive.id }, data: { path: "bulk", total: count } });
      await ensureWaitingRun(tx, job.shop, now);
      return;
    }
    await queueOrders(
      tx,
      job.shop,
      orders.nodes.map((node) => ({ customerId: payload.customerId, node })),
      now,
    );
    const more = orders.pageInfo.hasNextPage && orders.pageInfo.endCursor;
    await tx.backfill.update({
      where: { id: payload.backfillId },
      data: {
        queued: { increment: orders.nodes.length },
        ...(typeof count === "number" && !payload.cursor ? { total: count } : {}),
        ...(more ? {} : { status: "done", finishedAt: now, error: null, errorDetails: Prisma.DbNull }),
      },
    });
    if (!more) {
      // No count from Shopify: the total is what was found.
      const row = await tx.backfill.findUniqueOrThrow({ where: { id: payload.backfillId } });
      if (row.total < row.queued) await tx.backfill.update({ where: { id: row.id }, data: { total: row.queued } });
    } else {
      const next: BackfillPayload = {
        ...payload,
        cursor: orders.pageInfo.endCursor,
        ...(sizes !== BACKFILL_SIZES ? { sizes } : {}),
      };
      await enqueueJob(tx, {
        shop: job.shop,
        kind: "backfill",
        payload: next,
        runAt: now,
        maxAttempts: job.maxAttempts,
      });
    }
  });
}
