// What a merchant can do from the sync log and a record's page: retry now, mark as resolved; for one record, the
// selected ones or all that match the filter. Scoped to the shop, safe to repeat: a record already queued, running
// or imported is left alone and the message says so. Only job rows and the resolved flag change: the worker owns
// the rest of a record.
import type { PrismaClient } from "@prisma/client";
import { requeueJob } from "../sync/queue.server";
import { notifyWorkers } from "../sync/signal.server";
import { RETRYABLE_STATES } from "../sync/states";
import { setSyncPaused } from "../sync/status.server";
import { parseLogFilter, type LogFilter } from "./log-query.server";
import { walkLog } from "./log.server";
import { translator, type Translator } from "../i18n/translate";
import type { MessageKey } from "../i18n/catalog";

const ENGLISH = translator("en");

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

const ONE: Record<RetryOutcome, { ok: boolean; message: MessageKey }> = {
  queued: { ok: true, message: "action.retry.queued" },
  already_queued: { ok: true, message: "action.retry.alreadyQueued" },
  running: { ok: true, message: "action.retry.running" },
  done: { ok: true, message: "action.retry.done" },
  not_retryable: { ok: true, message: "action.retry.notRetryable" },
  no_job: { ok: false, message: "action.retry.noJob" },
  not_found: { ok: false, message: "action.retry.notFound" },
};

export async function retryRecord(
  prisma: PrismaClient,
  shop: string,
  id: string,
  now = new Date(),
  { t } = ENGLISH,
): Promise<ActionResult> {
  const outcome = await retryOne(prisma, shop, id, now);
  if (outcome === "queued" || outcome === "already_queued") notifyWorkers();
  return { ok: ONE[outcome].ok, message: t(ONE[outcome].message) };
}

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

function retrySummary(counts: Record<RetryOutcome, number>, capped: boolean, { t }: Translator): ActionResult {
  const parts = [t("action.bulk.queued", { count: counts.queued })];
  if (counts.already_queued) parts.push(t("action.bulk.alreadyQueued", { count: counts.already_queued }));
  if (counts.running) parts.push(t("action.bulk.running", { count: counts.running }));
  const notFailed = counts.done + counts.not_retryable;
  if (notFailed) parts.push(t("action.bulk.notFailed", { count: notFailed }));
  const lost = counts.no_job + counts.not_found;
  if (lost) parts.push(t("action.bulk.notRetried", { count: lost }));
  const more = capped ? ` ${t("action.bulk.cappedRetry", { max: MAX_BULK })}` : "";
  return {
    ok: true,
    message: `${t("action.bulk.sentence", { parts: parts.join(t("action.bulk.separator")) })}${more}`,
  };
}

const boundedIds = (ids: string[]) =>
  [...new Set(ids.filter((id) => typeof id === "string" && id.length > 0 && id.length <= 64))].slice(0, MAX_IDS);

export async function retrySelected(
  prisma: PrismaClient,
  shop: string,
  ids: string[],
  now = new Date(),
  words = ENGLISH,
): Promise<ActionResult> {
  const wanted = boundedIds(ids);
  if (wanted.length === 0) return { ok: false, message: words.t("action.retry.selectFirst") };
  return retrySummary(await retryMany(prisma, shop, wanted, now), false, words);
}

/** Every failed import that matches the filter (whatever the state filter says: only failed ones are retried). */
export async function retryMatching(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
  now = new Date(),
  words = ENGLISH,
): Promise<ActionResult> {
  const { t } = words;
  const failedOnly: LogFilter = { ...filter, state: filter.state === "attention" ? "attention" : "failed" };
  if (filter.kind === "handoff") return { ok: true, message: t("action.retry.handoffs") };
  const { ids, capped } = await matchingIds(prisma, shop, failedOnly);
  if (ids.length === 0) return { ok: true, message: t("action.retry.noneMatch") };
  return retrySummary(await retryMany(prisma, shop, ids, now), capped, words);
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
  { t } = ENGLISH,
): Promise<ActionResult> {
  if (filter.kind === "handoff") return { ok: true, message: t("action.resolve.handoffs") };
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
  if (count === 0) return { ok: true, message: t("action.resolve.noneMatch") };
  const more = capped ? ` ${t("action.bulk.cappedResolve", { max: MAX_BULK })}` : "";
  return { ok: true, message: `${t("action.resolve.done", { count })}${more}` };
}

/** Failed or skipped records marked as dealt with: they leave "needs attention". Repeating it changes nothing. */
export async function resolveRecords(
  prisma: PrismaClient,
  shop: string,
  ids: string[],
  now = new Date(),
  { t } = ENGLISH,
): Promise<ActionResult> {
  const wanted = boundedIds(ids);
  if (wanted.length === 0) return { ok: false, message: t("action.resolve.selectFirst") };
  const { count } = await prisma.syncRecord.updateMany({
    where: { shop, id: { in: wanted }, state: { in: [...RETRYABLE_STATES] }, resolvedAt: null },
    data: { resolvedAt: now },
  });
  if (count === 0) return { ok: true, message: t("action.resolve.nothing") };
  const rest = wanted.length - count;
  const more = rest ? ` ${t("action.resolve.rest", { count: rest })}` : "";
  return { ok: true, message: `${t("action.resolve.done", { count })}${more}` };
}

/**
 * The sync log page's form: pause or resume the shop's sync, retry or resolve the selected records (`id`) or every
 * record the view's filter matches (`all=1`, `filter` the view's query, hostile until parsed).
 */
export async function logPageAction(
  prisma: PrismaClient,
  shop: string,
  form: FormData,
  words: Translator,
): Promise<ActionResult> {
  const intent = form.get("intent");
  const ids = form.getAll("id").filter((v): v is string => typeof v === "string");
  const filter = parseLogFilter(new URLSearchParams(String(form.get("filter") ?? "").slice(0, 2000)));
  const all = form.get("all") === "1";
  if (intent === "pause" || intent === "resume") {
    const { ok } = await setSyncPaused(prisma, shop, intent === "pause");
    return { ok, message: words.t(intent === "pause" ? "log.pausedToast" : "log.resumedToast") };
  }
  if (intent === "retry")
    return all
      ? retryMatching(prisma, shop, filter, undefined, words)
      : retrySelected(prisma, shop, ids, undefined, words);
  if (intent === "resolve")
    return all
      ? resolveMatching(prisma, shop, filter, undefined, words)
      : resolveRecords(prisma, shop, ids, undefined, words);
  return { ok: false, message: words.t("action.unknown") };
}
