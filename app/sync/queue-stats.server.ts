// What the queue looks like now, for the metrics (app/runtime/operations.server.ts reads it at scrape time and keeps
// it a few seconds, so N processes scraped every 15 s cost the database little). One statement, bounded whatever
// the backlog: counts stop at COUNT_CAP, the oldest due job is found per shop with queued work through the partial
// index on queued jobs (one index probe per shop), and the statement has its own timeout.
import { Prisma, type PrismaClient } from "@prisma/client";
import { shopHeldSql } from "../db/shop-settings.server";
import { ts } from "../db/sql.server";
import { HEARTBEAT_STALE_MS } from "./heartbeat.server";

/** Counts above this read as this: the queue's depth matters up to here; its age says the rest. */
const COUNT_CAP = 100_000;
/** Shops looked at for the oldest due job (a deployment with more shops with queued work reads the first ones). */
const SHOP_CAP = 10_000;

export interface QueueStats {
  /** Queued jobs whose run time has passed, queued jobs for later, running jobs (each at most COUNT_CAP). */
  due: number;
  scheduled: number;
  running: number;
  /** Seconds the longest-waiting due job of a shop that is neither paused nor uninstalled has been due; 0 if none. */
  oldestDueSeconds: number;
  backfillsRunning: number;
  /** Workers (in every process) whose heartbeat is fresh. */
  workersAlive: number;
}

const capped = (where: Prisma.Sql) =>
  Prisma.sql`(SELECT count(*) FROM (SELECT 1 FROM "Job" WHERE ${where} LIMIT ${COUNT_CAP}) c)::int`;

function queueStatsStatement(now: Date): Prisma.Sql {
  const at = ts(now);
  return Prisma.sql`
    SELECT ${capped(Prisma.sql`status = 'queued' AND "runAt" <= ${at}`)} AS due,
      ${capped(Prisma.sql`status = 'queued' AND "runAt" > ${at}`)} AS scheduled,
      ${capped(Prisma.sql`status = 'running'`)} AS running,
      COALESCE((
        SELECT EXTRACT(EPOCH FROM (${at} - min(n."runAt")))::float8
        FROM (SELECT s.shop FROM "JobShop" s WHERE NOT ${shopHeldSql("s")} LIMIT ${SHOP_CAP}) s
        CROSS JOIN LATERAL (
          SELECT j."runAt" FROM "Job" j WHERE j.shop = s.shop AND j.status = 'queued' ORDER BY j."runAt" LIMIT 1
        ) n
        WHERE n."runAt" <= ${at}
      ), 0)::float8 AS "oldestDueSeconds",
      (SELECT count(*) FROM (SELECT 1 FROM "Backfill" WHERE status = 'running' LIMIT ${COUNT_CAP}) b)::int AS "backfillsRunning",
      (SELECT count(*) FROM "WorkerHeartbeat" WHERE "beatAt" > ${ts(new Date(now.getTime() - HEARTBEAT_STALE_MS))})::int AS "workersAlive"`;
}

/** Reads the stats in one statement that PostgreSQL stops after `timeoutMs`. */
export async function readQueueStats(prisma: PrismaClient, now = new Date(), timeoutMs = 2_000): Promise<QueueStats> {
  const [, rows] = await prisma.$transaction([
    prisma.$queryRaw`SELECT set_config('statement_timeout', ${String(timeoutMs)}, true)`,
    prisma.$queryRaw<QueueStats[]>(queueStatsStatement(now)),
  ]);
  const row = rows[0];
  return {
    due: Number(row.due),
    scheduled: Number(row.scheduled),
    running: Number(row.running),
    oldestDueSeconds: Math.max(0, Number(row.oldestDueSeconds)),
    backfillsRunning: Number(row.backfillsRunning),
    workersAlive: Number(row.workersAlive),
  };
}
