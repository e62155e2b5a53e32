// Applies Prisma migrations (prisma/migrations/*/migration.sql) at start, keeping Prisma's own
// `_prisma_migrations` bookkeeping so `prisma migrate status/deploy` on a normal network agree with it.
// Why not `prisma migrate deploy`: in Prisma 6.19 the JS schema engine cannot migrate PGlite or PostgreSQL
// reliably without network access (docs/decisions/0003). This runner is that one small workaround, for both databases.
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { logger } from "../lib/logger.server";
import { randomUUID } from "node:crypto";
import { sha256 } from "../lib/hash";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

// The runner works on a connection of its own, a `pg.Client` (PostgreSQL) or PGlite, before any client of the app
// uses it. What it needs of either: a parameterised statement, a script of several statements, and whether concurrent
// starters must take turns (PostgreSQL, with an advisory lock; PGlite has one connection and needs none).
function runnerOn(connection: pg.Client | PGlite) {
  type Rows<T> = Promise<{ rows: T[] }>;
  if ("exec" in connection) {
    const pglite = connection;
    return {
      query: <T>(sql: string, params?: unknown[]): Rows<T> => pglite.query<T>(sql, params),
      exec: (sql: string): Promise<unknown> => pglite.exec(sql),
      supportsAdvisoryLocks: false,
    };
  }
  const client = connection;
  return {
    query: <T>(sql: string, params?: unknown[]): Rows<T> => client.query(sql, params) as unknown as Rows<T>,
    exec: (sql: string): Promise<unknown> => client.query(sql),
    supportsAdvisoryLocks: true,
  };
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

// The id Prisma itself uses for its migration advisory lock, so our runner and Prisma's CLI exclude each other.
const MIGRATION_LOCK_ID = 72707369;

export const defaultMigrationsDir = () => path.resolve(process.cwd(), "prisma", "migrations");

export async function readMigrations(dir = defaultMigrationsDir()): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: sha256(sql) };
    }),
  );
}

const CREATE_BOOKKEEPING = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Applies every pending migration in order, each in its own transaction. Returns the names applied. */
export async function applyMigrations(connection: pg.Client | PGlite, migrations: Migration[]): Promise<string[]> {
  const db = runnerOn(connection);
  if (db.supportsAdvisoryLocks) await db.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
  try {
    await db.exec(CREATE_BOOKKEEPING);
    const { rows } = await db.query<{ migration_name: string; checksum: string; finished_at: unknown }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    const applied: string[] = [];
    for (const migration of migrations) {
      const previous = done.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          // Same rule as Prisma: an applied migration must never be edited; add a new one instead.
          logger("db").warn(
            { migration: migration.name },
            "migration edited after it was applied; add a new migration instead",
          );
        }
        continue;
      }
      if (previous) {
        throw new Error(
          `migration ${migration.name} failed earlier and is marked unfinished; fix the database, then delete its row from _prisma_migrations`,
        );
      }
      const id = randomUUID();
      await db.exec("BEGIN");
      try {
        await db.exec(migration.sql);
        await db.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), 1)`,
          [id, migration.checksum, migration.name],
        );
        await db.exec("COMMIT");
      } catch (error) {
        await db.exec("ROLLBACK");
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
      applied.push(migration.name);
    }
    return applied;
  } finally {
    if (db.supportsAdvisoryLocks) await db.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
  }
}
