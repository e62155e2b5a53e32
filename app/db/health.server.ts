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
