// `npx tsx scripts/bench/lease-plan.ts [pglite]`: EXPLAIN ANALYZE of one lease at 100,000 queued jobs (one shop,
// then 1,000 shops), on a throwaway PostgreSQL database (or PGlite): the plans quoted in docs/performance.md.
import { openDatabase } from "../../app/db/connect.server";
import { PGlite } from "@electric-sql/pglite";
import { explainLease, explainLeaseText, fillQueue } from "./backlog";
import { throwawayDatabase } from "./common";

const adminUrl =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const usePglite = process.argv.includes("pglite");
for (const shops of [1, 1_000]) {
  const scratch = usePglite ? undefined : await throwawayDatabase(adminUrl, "plan");
  const db = usePglite ? openDatabase({ pglite: new PGlite() }) : openDatabase({ url: scratch!.url, poolSize: 2 });
  try {
    await db.ready;
    await fillQueue(db.prisma, { count: 100_000, shops, prefix: "plan", jobsPerOrder: shops === 1 ? 2 : 1 });
    if (!usePglite) await db.prisma.$executeRawUnsafe(`ANALYZE "Job"`);
    // a few leases first, so the plan is that of a queue being worked on, not of the first lease
    for (let i = 0; i < 3; i++)
      console.log(
        "warm-up lease",
        (await explainLease(db.prisma, { workerId: `warm-${i}`, limit: 8 })).executionMs.toFixed(1),
        "ms",
      );
    console.log(`\n## ${usePglite ? "PGlite" : "PostgreSQL"}, 100,000 queued over ${shops} shop(s), limit 8\n`);
    console.log(await explainLeaseText(db.prisma, { workerId: "plan", limit: 8 }));
    const measured = await explainLease(db.prisma, { workerId: "plan-2", limit: 8 });
    console.log(
      `\n"Job" rows touched: ${measured.jobRows}, leased ${measured.leased}, execution ${measured.executionMs.toFixed(2)} ms`,
    );
  } finally {
    await db.close();
    await scratch?.drop();
  }
}
process.exit(0);
