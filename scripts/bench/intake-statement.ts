// The intake statement alone: batches of N deliveries written one after another (no HTTP): the time per batch, the
// statement's round trip, and this process's CPU per delivery. `npx tsx scripts/bench/intake-statement.ts [pglite] [N] [-c name=value ...]`.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../../app/db/connect.server";
import { driverOf } from "../../app/db/sql.server";
import { createIntakeBatcher } from "../../app/sync/intake-batcher.server";
import { throwawayDatabase, orderBody } from "./common";
import { percentile } from "./load";

const pglite = process.argv.includes("pglite");
const size = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 8);
const adminUrl =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const pg = pglite ? undefined : await throwawayDatabase(adminUrl, "intake_stmt");
// `-c name=value` arguments: PGlite settings instead of the app's (PGLITE_SETTINGS); PGlite runs on a data directory.
const settings = Object.fromEntries(
  process.argv.flatMap((a, i) => (process.argv[i - 1] === "-c" ? [a.split("=")] : [])),
);
const dataDir = pg ? undefined : mkdtempSync(path.join(tmpdir(), "intake-statement-"));
const db = openDatabase(
  pg ? { url: pg.url, poolSize: 4 } : { dataDir, pgliteSettings: Object.keys(settings).length ? settings : undefined },
);
await db.ready;
try {
  const inStatement: number[] = [];
  // The statement's round trip, timed at the driver the intake's rawQuery goes through.
  const driver = driverOf(db.prisma)!;
  const query = driver.query.bind(driver);
  driver.query = async <T>(text: string, params: unknown[], name?: string) => {
    const t = performance.now();
    try {
      return await query<T>(text, params, name);
    } finally {
      inStatement.push(performance.now() - t);
    }
  };
  const batcher = createIntakeBatcher(db.prisma, { maxItems: size, windowMs: 1000 });
  const batch = () =>
    Promise.all(
      Array.from({ length: size }, () =>
        batcher.submit({
          shop: "bench-shop.myshopify.com",
          topic: "ORDERS_CREATE",
          eventId: randomUUID(),
          payload: JSON.parse(orderBody()),
        }),
      ),
    );
  for (let i = 0; i < 50; i++) await batch();
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await batch();
    times.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  console.log(`this process's CPU per delivery: ${((used.user + used.system) / 1000 / (300 * size)).toFixed(3)} ms`);
  times.sort((a, b) => a - b);
  const statement = inStatement.slice(-300).sort((a, b) => a - b);
  console.log(
    `${pglite ? "PGlite" : "PostgreSQL"}, batches of ${size}: p50 ${percentile(times, 50).toFixed(2)} ms, p90 ${percentile(times, 90).toFixed(2)} ms; ` +
      `the statement's round trip p50 ${percentile(statement, 50).toFixed(2)} ms, p90 ${percentile(statement, 90).toFixed(2)} ms`,
  );
} finally {
  await db.close();
  await pg?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
