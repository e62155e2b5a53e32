// What a merchant can do from the sync log and a record's page: retry now, mark as resolved; for one record, the
// selected ones or all that match the filter. Scoped to the shop, safe to repeat: a record already queued, running
// or imported is left alone and the message says so. Only job rows and the resolved flag change: the worker owns
// the rest of a record.
import type { PrismaClient } from "@prisma/client";
import { requeueJob } from "../sync/queue.server";
import { notifyWorkers } from "../sync/signal.server";
import { RETRYABLE_STATES } from "../sync/states";
import type { LogFilter } from "./log-query.server";
import { walkLog } from "./log.server";

export type ActionResult = { ok: boolean; message: string };
type RetryOutcome = "queued" | "already_queued" | "running" | "done" | "not_retryable" | "no_job" | "not_found";

/** At most this many records per click ("all matching the filter"); the message says when there were more. */
export const MAX_BULK = 10_000;
const MAX_IDS = 250;

async function retryOne(prisma: PrismaClient, shop: string, id: string, now: Date): Promise<RetryOutcome> {
  const record = await prisma.syncRecord.findFirst({ where: { id, shop }, select: { state: true } });
  if (!record) return "not_found";
  if (record.state === "imported" || record.state === "updated") return "done";
  const job = await prisma.job.findFirst({
    where: { shop, recordId: id },
    orderBy: { seq: "desc" },
    select: { id: true, status: true },
  });
  if (!job) return "no_job";
  if (job.status === "running") return "running";
  if (job.status === "queued") {
    // Waiting for its next try: bring that try forward, nothing else (the attempt budget is not reset).
    await prisma.job.updateMany({
      where: { shop, recordId: id, status: "queued", runAt: { gt: now } },
      data: { runAt: now },
    });
    return "already_queued";
  }
  if (!RETRYABLE_STATES.has(record.state)) return "not_retryable";
  // Only from the status read above: of two clicks at once one queues it, the other finds it changed and says so.
  if (!(await requeueJob(prisma, job, now))) {
    const current = await prisma.job.findUnique({ where: { id: job.id }, select: { status: true } });
    return current?.status === "queued" ? "already_queued" : "running";
  }
  await prisma.syncRecord.updateMany({ where: { id, shop }, data: { resolvedAt: null } });
  return "queued";
}

const ONE: Record<RetryOutcome, ActionResult> = {
  queued: { ok: true, message: "Queued again. The state updates once it has run." },
  already_queued: { ok: true, message: "Already queued: it runs now. Nothing else to do." },
  running: { ok: true, message: "It is being imported right now. Nothing to do." },
  done: { ok: true, message: "Already imported. Nothing to retry." },
  not_retryable: { ok: true, message: "Only failed or skipped imports can be retried. Nothing to do." },
  no_job: {
    ok: false,
    message:
      "There is nothing left to send it from (its job was cleared long ago). Shopify sends it again when the order changes.",
  },
  not_found: { ok: false, message: "That import was not found." },
};

export async function retryRecord(
  prisma: PrismaClient,
  shop: string,
  id: string,
  now = new Date(),
): Promise<ActionResult> {
  const outcome = await retryOne(prisma, shop, id, now);
  if (outcome === "queued" || outcome === "already_queued") notifyWorkers();
  return ONE[outcome];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

async function retryMany(
  prisma: PrismaClient,
  shop: string,
  ids: Iterable<string>,
  now: Date,
): Promise<Record<RetryOutcome, number>> {
  const counts: Record<RetryOutcome, number> = {
    queued: 0,
    already_queued: 0,
    running: 0,
    done: 0,
    not_retryable: 0,
    no_job: 0,
    not_found: 0,
  };
  for (const id of ids) counts[await retryOne(prisma, shop, id, now)] += 1;
  if (counts.queued + counts.already_queued > 0) notifyWorkers();
  return counts;
}

function retrySummary(counts: Record<RetryOutcome, number>, capped: boolean): ActionResult {
  const parts = [`${plural(counts.queued, "import")} queued again`];
  if (counts.already_queued) parts.push(`${counts.already_queued} already queued`);
  if (counts.running) parts.push(`${counts.running} running now`);
  if (counts.done + counts.not_retryable) parts.push(`${counts.done + counts.not_retryable} not failed (left alone)`);
  if (counts.no_job + counts.not_found) parts.push(`${counts.no_job + counts.not_found} could not be retried`);
  const more = capped ? ` Stopped at ${MAX_BULK}: retry again for the rest.` : "";
  return { ok: true, message: `${parts.join(", ")}.${more}` };
}

const boundedIds = (ids: string[]) =>
  [...new Set(ids.filter((id) => typeof id === "string" && id.length > 0 && id.length <= 64))].slice(0, MAX_IDS);

export async function retrySelected(
  prisma: PrismaClient,
  shop: string,
  ids: string[],
  now = new Date(),
): Promise<ActionResult> {
  const wanted = boundedIds(ids);
  if (wanted.length === 0) return { ok: false, message: "Select the imports to retry." };
  return retrySummary(await retryMany(prisma, shop, wanted, now), false);
}

/** Every failed import that matches the filter (whatever the state filter says: only failed ones are retried). */
export async function retryMatching(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
  now = new Date(),
): Promise<ActionResult> {
  const failedOnly: LogFilter = { ...filter, state: filter.state === "attention" ? "attention" : "failed" };
  if (filter.kind === "handoff")
    return { ok: true, message: "Cart handoffs are not retried from here: the shopper clicks again. Nothing to do." };
  const { ids, capped } = await matchingIds(prisma, shop, failedOnly);
  if (ids.length === 0) return { ok: true, message: "No failed imports match this view. Nothing to do." };
  return retrySummary(await retryMany(prisma, shop, ids, now), capped);
}

async function matchingIds(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
): Promise<{ ids: string[]; capped: boolean }> {
  let seen = 0;
  const ids: string[] = [];
  for await (const rows of walkLog(prisma, shop, filter)) {
    for (const row of rows) if (seen++ < MAX_BULK) ids.push(row.id);
    if (seen > MAX_BULK) break;
  }
  return { ids, capped: seen > MAX_BULK };
}

/** Every failed (or skipped, with that filter) record matching the filter, marked as resolved. */
export async function resolveMatching(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
  now = new Date(),
): Promise<ActionResult> {
  if (filter.kind === "handoff") return { ok: true, message: "Cart handoffs have nothing to resolve. Nothing to do." };
  const { ids, capped } = await matchingIds(prisma, shop, {
    ...filter,
    state: filter.state === "skipped" ? "skipped" : "attention",
  });
  let count = 0;
  for (let i = 0; i < ids.length; i += MAX_IDS) {
    const result = await prisma.syncRecord.updateMany({
      where: { shop, id: { in: ids.slice(i, i + MAX_IDS) }, state: { in: [...RETRYABLE_STATES] }, resolvedAt: null },
      data: { resolvedAt: now },
    });
    count += result.count;
  }
  if (count === 0) return { ok: true, message: "No unresolved failures match this view. Nothing to do." };
  return {
    ok: true,
    message: `${plural(count, "import")} marked as resolved.${capped ? ` Stopped at ${MAX_BULK}: repeat for the rest.` : ""}`,
  };
}

/** Failed or skipped records marked as dealt with: they leave "needs attention". Repeating it changes nothing. */
export async function resolveRecords(
  prisma: PrismaClient,
  shop: string,
  ids: string[],
  now = new Date(),
): Promise<ActionResult> {
  const wanted = boundedIds(ids);
  if (wanted.length === 0) return { ok: false, message: "Select the imports to mark as resolved." };
  const { count } = await prisma.syncRecord.updateMany({
    where: { shop, id: { in: wanted }, state: { in: [...RETRYABLE_STATES] }, resolvedAt: null },
    data: { resolvedAt: now },
  });
  if (count === 0) return { ok: true, message: "Already resolved, or not failed. Nothing to do." };
  const rest = wanted.length - count;
  return {
    ok: true,
    message: `${plural(count, "import")} marked as resolved.${rest ? ` ${rest} already resolved or not failed.` : ""}`,
  };
}
