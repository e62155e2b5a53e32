// The service's rate budget shared by every process on one PostgreSQL database (docs/decisions/0013).
//
// One row per service client models the service's leaky bucket (level at an instant of the database's own clock,
// so processes' clocks never disagree about it) with what any process learned of it: the policy
// (`RateLimit-Policy`), a floor from `RateLimit`'s remaining count, a `Retry-After` block. A process takes slots
// from it in batches (`lease`): one statement grants up to `want` slots that fit under the ceiling, learns and
// teaches in the same round trip (while no process knows the policy, a first wave of a few slots), and names how many processes drew on the budget lately (the fallback's share,
// app/service/rate-limiter.server.ts). The scheduler spends a batch within a fraction of a second, so no request costs a
// round trip of its own. On PGlite (one process) nothing of this runs: the scheduler's own model is the budget.
import type { PrismaClient } from "@prisma/client";
import { Prisma } from "@prisma/client";
import { randomUUID } from "node:crypto";
import { rawQuery } from "../db/sql.server";
import { serviceScheduler, type SharedRateStore } from "../service/client.server";
import { sharedAdminBudget } from "../shopify/admin-cost-budget.server";

/** Points a process holds count for a minute after it last drew on the budget (then it is taken to be gone). */
const HOLD_EXPIRES_MS = 60_000;

interface LeaseRow {
  granted: number;
  capacity: number | null;
  perSecond: number | null;
  level: number;
  waitMs: number;
  peers: number;
}

/**
 * The shared budget in PostgreSQL, for the process `holder`. The first statement for a client creates its row
 * (once per process); every lease after that is one statement.
 */
export function postgresRateStore(prisma: PrismaClient, holder: string): SharedRateStore {
  const created = new Set<string>();
  return {
    async lease(client, request) {
      if (!created.has(client)) {
        await rawQuery(
          prisma,
          Prisma.sql`INSERT INTO "ServiceRateBudget" ("clientKey") VALUES (${client}) ON CONFLICT DO NOTHING`,
        );
        // Processes long gone (each start is a new holder): forgotten after an hour.
        await rawQuery(
          prisma,
          Prisma.sql`DELETE FROM "ServiceRateHolder"
            WHERE "seenAtMs" < EXTRACT(EPOCH FROM clock_timestamp()) * 1000 - 3600000`,
        );
        created.add(client);
      }
      const want = Math.max(0, Math.floor(request.want));
      const hold = request.hold ?? false;
      const [row] = await rawQuery<LeaseRow>(
        prisma,
        Prisma.sql`
WITH clock AS (SELECT EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS t),
seen AS (
  INSERT INTO "ServiceRateHolder" ("clientKey", "holder", "seenAtMs") SELECT ${client}, ${holder}, clock.t FROM clock
  ON CONFLICT ("clientKey", "holder") DO UPDATE SET "seenAtMs" = EXCLUDED."seenAtMs"
  RETURNING 1
),
cur AS (
  SELECT b."clientKey",
         COALESCE(${request.policy?.capacity ?? null}::float8, b."capacity") AS cap,
         COALESCE(${request.policy?.perSecond ?? null}::float8, b."perSecond") AS rate,
         b."level", b."atMs",
         GREATEST(b."blockedUntilMs", clock.t + ${request.blockedForMs ?? null}::float8) AS blocked,
         b."held", clock.t
  FROM "ServiceRateBudget" b, clock WHERE b."clientKey" = ${client} FOR UPDATE OF b
),
lvl AS (
  SELECT cur.*,
         GREATEST(COALESCE(${request.floorLevel ?? null}::float8, 0),
                  GREATEST(0, cur."level" - (cur.t - cur."atMs") / 1000 * COALESCE(cur.rate, ${request.firstWave?.perSecond ?? null}::float8, 0))
                    + ${request.arrived ?? 0}::float8)
           + ${request.spent ?? 0}::float8 AS now_level,
         -- Held by other processes (a process gone for a minute holds nothing), and by this one after what it gives back.
         COALESCE((SELECT sum((e.value->>0)::float8) FROM jsonb_each(cur."held") e
                    WHERE e.key <> ${holder}::text AND (e.value->>1)::float8 > cur.t - ${HOLD_EXPIRES_MS}), 0) AS others_held,
         GREATEST(0, COALESCE((cur."held"->(${holder}::text)->>0)::float8, 0) - ${request.released ?? 0}::float8)
           + ${request.held ?? 0}::float8 AS own_held,
         CASE WHEN cur.cap IS NULL THEN ${request.firstWave?.slots ?? null}::float8
              ELSE GREATEST(1, cur.cap - ${request.headroom}::float8) END AS ceiling,
         COALESCE(cur.rate, ${request.firstWave?.perSecond ?? null}::float8) AS pace
  FROM cur
),
dec AS (
  SELECT lvl.*,
         CASE WHEN lvl.ceiling IS NULL OR lvl.pace IS NULL OR COALESCE(lvl.blocked, 0) > lvl.t THEN 0
              WHEN ${request.whole ?? false}::boolean
                AND FLOOR(lvl.ceiling - lvl.now_level - lvl.others_held - lvl.own_held) < ${want}::int THEN 0
              ELSE LEAST(${want}::int, GREATEST(0, FLOOR(lvl.ceiling - lvl.now_level - lvl.others_held - lvl.own_held)))::int
         END AS granted
  FROM lvl
),
holds AS (
  SELECT dec.*, dec.own_held + CASE WHEN ${hold}::boolean THEN dec.granted ELSE 0 END AS own_after FROM dec
),
upd AS (
  UPDATE "ServiceRateBudget" b
  SET "capacity" = holds.cap, "perSecond" = holds.rate, "atMs" = holds.t, "blockedUntilMs" = holds.blocked,
      "level" = holds.now_level + CASE WHEN ${hold}::boolean THEN 0 ELSE holds.granted END,
      "held" = (SELECT COALESCE(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(holds."held") e
                 WHERE e.key <> ${holder}::text AND (e.value->>1)::float8 > holds.t - ${HOLD_EXPIRES_MS})
               || CASE WHEN holds.own_after > 0
                       THEN jsonb_build_object(${holder}::text, jsonb_build_array(holds.own_after, holds.t))
                       ELSE '{}'::jsonb END
  FROM holds WHERE b."clientKey" = holds."clientKey"
  RETURNING holds.granted, holds.cap, holds.rate, holds.pace,
            holds.now_level + holds.granted + holds.others_held + holds.own_held AS level, holds.ceiling, holds.blocked,
            holds.t
)
SELECT upd.granted, upd.cap AS "capacity", upd.rate AS "perSecond", upd.level,
       GREATEST(COALESCE(upd.blocked, 0) - upd.t,
                CASE WHEN upd.pace IS NULL OR upd.ceiling IS NULL THEN 0
                     ELSE (upd.level + GREATEST(${want}::int, 1) - upd.ceiling) / upd.pace * 1000 END, 0)
         AS "waitMs",
       (SELECT count(*) FROM "ServiceRateHolder" h, clock
         WHERE h."clientKey" = ${client} AND h."seenAtMs" > clock.t - 30000 AND h."holder" <> ${holder})::int
         + (SELECT count(*) FROM seen)::int AS peers
FROM upd`,
        "service_rate_lease",
      );
      if (!row) throw new Error("the service's rate budget row is missing");
      return {
        granted: Number(row.granted),
        policy:
          row.capacity !== null && row.perSecond !== null
            ? { capacity: Number(row.capacity), perSecond: Number(row.perSecond) }
            : undefined,
        level: Number(row.level),
        waitMs: Math.max(0, Number(row.waitMs)),
        peers: Math.max(1, Number(row.peers)),
      };
    },
  };
}

let sharedWith: PrismaClient | undefined;

/**
 * On PostgreSQL (several processes may run): this process's scheduler draws on the one budget per client that every
 * process shares through `prisma`'s database, and its Admin API queries on the one cost ledger per shop. Called by the process's wiring (app/runtime); once per database.
 */
export function shareServiceRate(prisma: PrismaClient): void {
  if (sharedWith === prisma) return;
  sharedWith = prisma;
  const store = postgresRateStore(prisma, `${process.pid}-${randomUUID().slice(0, 8)}`);
  serviceScheduler().share(store);
  // Shopify's Admin API cost bucket per shop, on the same primitive (docs/decisions/0014).
  sharedAdminBudget.share(store);
}
