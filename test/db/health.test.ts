import { describe, expect, it } from "vitest";
import { openDatabase } from "~/db/connect.server";
import { checkDatabase } from "~/db/health.server";
import { createTestDatabase } from "../helpers/db";

describe("health check", () => {
  it("reports a reachable database", async () => {
    const db = await createTestDatabase();
    expect(await checkDatabase(db)).toMatchObject({ ok: true, database: { reachable: true } });
    await db.close();
  });

  it("reports a database that is down, without leaking its address", async () => {
    const down = openDatabase({ url: "postgresql://app:hunter2@127.0.0.1:1/app" });
    const health = await checkDatabase(down, 1500);
    expect(health).toMatchObject({ ok: false, database: { kind: "postgres", reachable: false } });
    expect(JSON.stringify(health)).not.toContain("hunter2");
    await down.close().catch(() => {});
  });
});
