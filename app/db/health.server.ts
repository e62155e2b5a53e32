import type { Database } from "./connect.server";

export interface Health {
  ok: boolean;
  database: { kind: "postgres" | "pglite"; reachable: boolean; latencyMs?: number; error?: string };
}

/** Whether `db` answers a query within `timeoutMs`; the first query waits for the migrations. */
export async function checkDatabase(db: Database, timeoutMs = 2000): Promise<Health> {
  const started = performance.now();
  try {
    await Promise.race([
      db.prisma.$queryRawUnsafe("SELECT 1"),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), timeoutMs).unref()),
    ]);
    return {
      ok: true,
      database: { kind: db.kind, reachable: true, latencyMs: Math.round(performance.now() - started) },
    };
  } catch (error) {
    // The message names the failure class only: a driver error can carry the connection string.
    const reason = /timed out/.test(String(error)) ? "timed out" : "unreachable";
    return { ok: false, database: { kind: db.kind, reachable: false, error: reason } };
  }
}

// Storage full: PostgreSQL's `disk_full` (53100, PGlite's as well: "could not extend file …: No space left on
// device"), or the OS's ENOSPC. A process whose writes were refused for want of space in the last few seconds is
// not ready (it answers what it cannot store with a retryable 503 meanwhile); the first write that goes through,
// or a few quiet seconds, end it: space back, orders taken again, no restart.
const STORAGE_FULL_FOR_MS = 5_000;
let storageFullAt: number | undefined;

/** Whether `error` (a driver's, Prisma's wrapping one, or the OS's) says the storage is full. */
export function isStorageFull(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  if (e.code === "53100" || e.code === "ENOSPC") return true;
  if (typeof e.message === "string" && /No space left on device/.test(e.message)) return true;
  return isStorageFull(e.cause, depth + 1) || isStorageFull(e.meta?.driverAdapterError, depth + 1);
}

/** A write's outcome: a storage-full error starts (or extends) the not-ready spell, a success ends it. */
export function noteWrite(error?: unknown): void {
  if (error === undefined) storageFullAt = undefined;
  else if (isStorageFull(error)) storageFullAt = Date.now();
}

/** "full" while writes are refused for want of space (readiness), else null. */
export const storageProblem = (now = Date.now()): string | null =>
  storageFullAt !== undefined && now - storageFullAt < STORAGE_FULL_FOR_MS ? "full: writes refused" : null;
