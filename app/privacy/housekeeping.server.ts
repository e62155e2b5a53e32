// What every worker does between jobs, on a timer (a periodic task app/runtime hands to startWorker): revocations that are due, the
// tokens of connections abandoned between the service's consent and the store's completion step, expired connection
// states, and retention.
// Each part runs on its own: one failing does not stop the others, and none of them touches a job being run.
import type { PrismaClient } from "@prisma/client";
import type { Keyring } from "../crypto/secret-box.server";
import type { PeriodicTask } from "../sync/job-runner.server";
import { loadServiceSettingsOrNull } from "../connections/settings-loader.server";
import {
  pendingToken,
  queueRevocations,
  drainRevocations,
  type DrainReport,
  type Revoke,
} from "../connections/revocations.server";
import { pruneExpired, type PruneReport } from "./retention.server";
import { tokensMayGoTo } from "../service/client.server";
import { STATE_RETENTION_MS } from "../connections/oauth-common.server";

/**
 * Connections whose state expired while still holding the exchanged tokens (the shopper never reached the store's
 * completion step): the tokens move to the revocation outbox. A compare-and-set on the sealed value means a
 * completion running at the same moment either stores them or leaves them here, never both.
 */
export async function sweepAbandonedConnections(
  prisma: PrismaClient,
  options: { now?: Date; keyring?: Keyring; batch?: number } = {},
): Promise<number> {
  const now = options.now ?? new Date();
  const rows = await prisma.oAuthState.findMany({
    where: { pendingTokensEnc: { not: null }, expiresAt: { lte: now } },
    select: { state: true, shop: true, pendingTokensEnc: true, boundOrigins: true },
    take: options.batch ?? 50,
  });
  let moved = 0;
  for (const row of rows) {
    // Undecryptable settings (null): the tokens cannot be revoked, only erased.
    let settings = await loadServiceSettingsOrNull(prisma, row.shop, { keyring: options.keyring });
    // Revoked only at the origins that issued them; settings that moved elsewhere (or no binding): only erased.
    if (settings && !tokensMayGoTo(row.boundOrigins, settings)) settings = null;
    await prisma.$transaction(async (tx) => {
      const taken = await tx.oAuthState.updateMany({
        where: { state: row.state, pendingTokensEnc: row.pendingTokensEnc },
        data: { pendingTokensEnc: null },
      });
      if (taken.count === 1)
        moved += await queueRevocations(tx, settings, [pendingToken(row, options.keyring)], {
          keyring: options.keyring,
          now,
        });
    });
  }
  return moved;
}

/**
 * Connection states a day past their expiry that hold no tokens (those are swept above first): deleted. The connect
 * page also deletes them when someone starts a connection; this does it when nobody does.
 */
export async function deleteExpiredStates(prisma: PrismaClient, options: { now?: Date } = {}): Promise<number> {
  const before = new Date((options.now ?? new Date()).getTime() - STATE_RETENTION_MS);
  const { count } = await prisma.oAuthState.deleteMany({
    where: { expiresAt: { lt: before }, pendingTokensEnc: null },
  });
  return count;
}

export interface HousekeepingReport {
  revocations?: DrainReport;
  abandoned?: number;
  statesDeleted?: number;
  pruned?: PruneReport;
  errors: string[];
}

export async function runHousekeeping(
  prisma: PrismaClient,
  options: { now?: Date; keyring?: Keyring; revoke?: Revoke; log?: (event: string, facts: object) => void } = {},
): Promise<HousekeepingReport> {
  const report: HousekeepingReport = { errors: [] };
  const part = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (error) {
      report.errors.push(`${name}: ${error instanceof Error ? error.message.slice(0, 200) : "failed"}`);
      return undefined;
    }
  };
  report.abandoned = await part("abandoned connections", () => sweepAbandonedConnections(prisma, options));
  report.statesDeleted = await part("expired connection states", () => deleteExpiredStates(prisma, options));
  report.revocations = await part("revocations", () => drainRevocations(prisma, options));
  report.pruned = await part("retention", () => pruneExpired(prisma, { now: options.now }));
  return report;
}

/** Housekeeping as the worker's periodic task (every 10 minutes unless told otherwise). */
export function housekeepingTask(
  prisma: PrismaClient,
  options: { everyMs?: number; keyring?: Keyring; revoke?: Revoke } = {},
): PeriodicTask {
  return {
    name: "housekeeping",
    everyMs: options.everyMs ?? 600_000,
    async run(now, log) {
      const done = await runHousekeeping(prisma, { ...options, now, log: (event, facts) => log.info(facts, event) });
      if (done.errors.length > 0) log.warn({ errors: done.errors }, "housekeeping failed in part");
    },
  };
}
