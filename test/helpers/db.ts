// A fresh, migrated database for one test file: a throwaway database on TEST_DATABASE_URL when it is set
// (CI sets it), PGlite in memory otherwise. Call `await db.close()` in afterAll.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "~/db/connect.server";
import { throwawayPostgres } from "../../dev/throwaway-postgres";
import { applyMigrations, readMigrations } from "~/db/migrations.server";

export interface TestDatabase extends Database {
  /** The PostgreSQL URL of this throwaway database (absent on PGlite); give it to worker processes. */
  url?: string;
}

export const usingPostgres = () => Boolean(process.env.TEST_DATABASE_URL);

/** PostgreSQL when TEST_DATABASE_URL is set, PGlite otherwise; `backend` forces one. */
export async function createTestDatabase(backend?: "pglite" | "postgres"): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (backend === "postgres" && !adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  if (adminUrl && backend !== "pglite") return createPostgresDatabase(adminUrl);
  const db = openDatabase({ pglite: await migratedPGlite() });
  await db.ready;
  return db;
}

/** A throwaway PostgreSQL database beside TEST_DATABASE_URL's, dropped on close. */
export async function createPostgresDatabase(adminUrl: string): Promise<TestDatabase> {
  const scratch = await throwawayPostgres(adminUrl, "test");
  const db = openDatabase({ url: scratch.url, poolSize: 5 });
  await db.ready;
  return {
    ...db,
    url: scratch.url,
    async close() {
      await db.close();
      await scratch.drop();
    },
  };
}

// A fresh PGlite takes ~2 s to boot and migrate; restoring a dump made once takes ~0.4 s.
// The dump is cached on disk, keyed by the migrations' content, so it is rebuilt only when they change.
async function migratedPGlite(): Promise<PGlite> {
  const migrations = await readMigrations();
  const key = createHash("sha256")
    .update(migrations.map((m) => m.name + m.checksum).join("|"))
    .digest("hex");
  const dir = path.resolve("node_modules/.cache/test-db");
  const file = path.join(dir, `pglite-${key.slice(0, 16)}.tar.gz`);
  if (!existsSync(file)) {
    const fresh = new PGlite();
    await applyMigrations(fresh, migrations);
    const dump = await fresh.dumpDataDir("gzip");
    await fresh.close();
    mkdirSync(dir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()));
    renameSync(temporary, file); // atomic: parallel test files never read a half-written dump
  }
  const pglite = new PGlite({ loadDataDir: new Blob([readFileSync(file)]) });
  await pglite.waitReady;
  return pglite;
}

/**
 * A throwaway PostgreSQL database for a describe block, and `connect(url?)`: another process's own pool on it (or on
 * `url`, e.g. through a proxy), closed after the block. For tests of what several processes share.
 */
export function postgresForProcesses(): { readonly db: TestDatabase; connect: (url?: string) => Promise<Database> } {
  let db: TestDatabase | undefined;
  const opened: Database[] = [];
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    for (const other of opened) await other.close().catch(() => undefined);
    await db?.close();
  });
  return {
    get db() {
      return db!;
    },
    connect: async (url = db!.url!) => {
      const other = openDatabase({ url, poolSize: 2 });
      opened.push(other);
      await other.ready;
      return other;
    },
  };
}
