import { database } from "../db.server";

export interface Health {
  ok: boolean;
  database: { kind: "postgres" | "pglite"; reachable: boolean; latencyMs?: number; error?: string };
}

export async function checkDatabase(timeoutMs = 2000): Promise<Health> {
  const db = database();
  const started = performance.now();
  try {
    await Promise.race([
      db.prisma.$queryRawUnsafe("SELECT 1"),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), timeoutMs).unref()),
    ]);
    return { ok: true, database: { kind: db.kind, reachable: true, latencyMs: Math.round(performance.now() - started) } };
  } catch (error) {
    // The message names the failure class only: a driver error can carry the connection string.
    const reason = /timed out/.test(String(error)) ? "timed out" : "unreachable";
    return { ok: false, database: { kind: db.kind, reachable: false, error: reason } };
  }
}
