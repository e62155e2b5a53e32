// Worker heartbeat: each running worker upserts its row every few seconds, so the admin can tell "the worker is
// alive and the backlog is moving" from "nothing is processing imports". A failed write never stops the worker.
import type { PrismaClient } from "@prisma/client";

export const HEARTBEAT_EVERY_MS = 5_000;
/** A worker whose last beat is older than this is considered gone (a long job may delay a beat). */
export const HEARTBEAT_STALE_MS = 60_000;

export interface Heartbeat {
  /** Writes the beat when one is due. */
  tick(): Promise<void>;
  /** Removes the row: a worker that stopped cleanly is not "alive". */
  stop(): Promise<void>;
  /** When the last beat was written (ms since the epoch), for this process's readiness; undefined before the first. */
  lastWritten(): number | undefined;
}

export function createHeartbeat(prisma: PrismaClient, workerId: string, everyMs = HEARTBEAT_EVERY_MS): Heartbeat {
  let next = 0;
  let written: number | undefined;
  return {
    async tick() {
      const now = Date.now();
      if (now < next) return;
      next = now + everyMs;
      const beatAt = new Date(now);
      await prisma.workerHeartbeat
        .upsert({ where: { workerId }, create: { workerId, beatAt }, update: { beatAt } })
        .then(
          () => (written = now),
          () => undefined,
        );
    },
    lastWritten: () => written,
    async stop() {
      await prisma.workerHeartbeat.deleteMany({ where: { workerId } }).catch(() => undefined);
    },
  };
}
