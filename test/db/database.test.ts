import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Prisma } from "@prisma/client";
import { openDatabase, PGLITE_SETTINGS } from "~/db/connect.server";
import { rawQuery } from "~/db/sql.server";
import { applyMigrations, readMigrations } from "~/db/migrations.server";
import { PGlite } from "@electric-sql/pglite";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";

// The same migrations on both databases; PostgreSQL whenever TEST_DATABASE_URL is set (CI sets it).
const backends = usingPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

describe.each(backends)("database on %s", (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    expect(db.kind).toBe(backend);
  });
  afterAll(() => db.close());

  it("has every migration applied and recorded the way Prisma records them", async () => {
    const names = (await readMigrations()).map((m) => m.name);
    const rows = await db.prisma.$queryRawUnsafe<{ migration_name: string; finished_at: Date | null }[]>(
      `SELECT migration_name, finished_at FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    expect(rows.every((r) => r.finished_at)).toBe(true);
  });

  it("stores and reads Shopify sessions and app rows through Prisma", async () => {
    await db.prisma.session.create({
      data: { id: "offline_a.myshopify.com", shop: "a.myshopify.com", state: "", accessToken: "shpat_x" },
    });
    await db.prisma.shopSettings.create({ data: { shop: "a.myshopify.com", clientId: "c1" } });
    expect(await db.prisma.session.count()).toBe(1);
    expect((await db.prisma.shopSettings.findUnique({ where: { shop: "a.myshopify.com" } }))?.clientId).toBe("c1");
  });
});

describe("migration runner", () => {
  it("applies pending migrations once and is a no-op the second time", async () => {
    const pglite = new PGlite();
    const migrations = await readMigrations();
    expect(await applyMigrations(pglite, migrations)).toEqual(migrations.map((m) => m.name));
    expect(await applyMigrations(pglite, migrations)).toEqual([]);
    await pglite.close();
  });

  it("rolls a failing migration back and does not record it", async () => {
    const pglite = new PGlite();
    const bad = [
      { name: "20990101000000_bad", sql: "CREATE TABLE a (id int); SELECT nope FROM missing;", checksum: "x" },
    ];
    await expect(applyMigrations(pglite, bad)).rejects.toThrow(/20990101000000_bad failed/);
    const tables = await pglite.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'a'`);
    expect(tables.rows[0].n).toBe(0);
    const recorded = await pglite.query<{ n: number }>(`SELECT count(*)::int AS n FROM "_prisma_migrations"`);
    expect(recorded.rows[0].n).toBe(0);
    await pglite.close();
  });

  it("lets queries wait for migrations instead of failing on a fresh database", async () => {
    const db = openDatabase({ pglite: new PGlite() });
    expect(await db.prisma.job.count()).toBe(0);
    await db.close();
  });
});

describe("PGlite's memory", () => {
  it("runs the app's PGlite with a small buffer pool, and the driver path reads what Prisma wrote", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "pglite-settings-"));
    const db = openDatabase({ dataDir });
    try {
      await db.ready;
      const [settings] = await rawQuery<{ shared_buffers: string }>(db.prisma, Prisma.sql`SHOW shared_buffers`);
      expect(settings.shared_buffers).toBe(PGLITE_SETTINGS.shared_buffers);
      await db.prisma.webhookDelivery.create({
        data: { id: "d1", shop: "s.myshopify.com", topic: "ORDERS_CREATE", eventId: "e1", payload: {} },
      });
      expect(await rawQuery(db.prisma, Prisma.sql`SELECT id FROM "WebhookDelivery"`)).toEqual([{ id: "d1" }]);
    } finally {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.runIf(usingPostgres())("migrations on PostgreSQL", () => {
  it("serialises app processes that start at the same time: each migration applied exactly once", async () => {
    const { createPostgresDatabase } = await import("../helpers/db");
    const { migratePostgres } = await import("~/db/connect.server");
    const db = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    // Back to an empty database, then three starters at once.
    await db.prisma.$executeRawUnsafe(`DROP SCHEMA public CASCADE`);
    await db.prisma.$executeRawUnsafe(`CREATE SCHEMA public`);
    const results = await Promise.all([migratePostgres(db.url!), migratePostgres(db.url!), migratePostgres(db.url!)]);
    const names = (await readMigrations()).map((m) => m.name);
    expect(results.flat().sort()).toEqual(names.sort());
    await db.close();
  });
});
