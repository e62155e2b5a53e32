// Where a PGlite process's memory goes: RSS of bare Node, after PGlite started on a data directory, after the
// migrations, and after writing intake batches, with PGlite's defaults or with `startParams` given as arguments
// (e.g. `-c shared_buffers=16MB`). `npx tsx scripts/bench/pglite-memory.ts [deliveries] [-c name=value ...]`.
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { openDatabase } from "../../app/db/connect.server";
import { createIntakeBatcher } from "../../app/sync/intake-batcher.server";
import { orderBody } from "./common";

const mib = (field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const args = process.argv.slice(2);
const deliveries = Number(args.find((a) => /^\d+$/.test(a)) ?? 6000);
const extra = args.filter((a) => !/^\d+$/.test(a));
const report = (step: string) =>
  console.log(`${step.padEnd(34)} RSS ${mib("VmRSS").toFixed(0)} MiB (peak ${mib("VmHWM").toFixed(0)})`);
// PGLITE_MEMORY_DIR: an existing data directory (no initdb at start, as in production after the first start).
const dir = process.env.PGLITE_MEMORY_DIR ?? mkdtempSync(path.join(tmpdir(), "pglite-memory-"));
try {
  report("node, modules loaded");
  const { defaultStartParams } = PGlite as unknown as { defaultStartParams?: string[] };
  const pglite = new PGlite(dir, extra.length ? { startParams: [...(defaultStartParams ?? []), ...extra] } : {});
  await pglite.waitReady;
  report("PGlite started");
  const db = openDatabase({ pglite });
  await db.ready;
  report("migrated");
  for (const name of ["shared_buffers", "work_mem", "maintenance_work_mem", "wal_buffers", "temp_buffers"]) {
    const [row] = (await pglite.query<Record<string, string>>(`SHOW ${name}`)).rows;
    process.stdout.write(`${name}=${row[name]} `);
  }
  console.log();
  const batcher = createIntakeBatcher(db.prisma, { maxInFlight: 1 });
  for (let i = 0; i < deliveries; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, () =>
        batcher.submit({
          shop: "mem-shop.myshopify.com",
          topic: "ORDERS_CREATE",
          eventId: randomUUID(),
          payload: JSON.parse(orderBody()),
        }),
      ),
    );
  }
  report(`after ${deliveries} deliveries`);
  global.gc?.();
  report("after a GC");
  await db.close();
} finally {
  if (!process.env.PGLITE_MEMORY_DIR) rmSync(dir, { recursive: true, force: true });
}
