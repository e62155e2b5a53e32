// A fresh, migrated database for one test file: a throwaway database on TEST_DATABASE_URL when it is set
// (CI sets it), PGlite in memory otherwise. Call `await db.close()` in afterAll.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { openDatabase, pgliteExecutor, type Database } from "~/db/connect.server";
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
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openDatabase({ url: url.toString(), poolSize: 5 });
  await db.ready;
  return {
    ...db,
    url: url.toString(),
    async close() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

// A fresh PGlite takes ~2 s to boot and migrate; restoring a dump made once takes ~0.4 s.
// The dump is cached on disk, keyed by the migrations' content, so it is rebuilt only when they change.
async function migratedPGlite(): Promise<PGlite> {
  const migrations = await readMigrations();
  const key = createHash("sha256").update(migrations.map((m) => m.name + m.checksum).join("|")).digest("hex");
  const dir = path.resolve("node_modules/.cache/test-db");
  const file = path.join(dir, `pglite-${key.slice(0, 16)}.tar.gz`);
  if (!existsSync(file)) {
    const fresh = new PGlite();
    await applyMigrations(pgliteExecutor(fresh), migrations);
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
