// `npm run bench`: every figure of the performance targets in one run, one table, JSON under bench/results/.
//
// PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test as the
// admin URL (throwaway databases beside it, dropped at the end). Needs the production build (npm run build).
// BENCH_ONLY=intake,drain runs some sections (intake, drain, backlog, sync-log, handoff, backfill, scale); `--repeat N` runs them N
// times (min/median/max of each ratio); BENCH_CPU_PROF=1 profiles the app's processes (--cpu-prof, files in
// bench/profiles/; the intake's measured window only, through the inspector); BENCH_QUICK=1 runs every section at
// small sizes (quick.ts), to check the whole run.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import "./quick"; // first: BENCH_QUICK's sizes before the sections read theirs
import { median, type Row } from "./common";
import { benches } from "./registry";

const adminUrl =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
if (!existsSync("build/server/index.js") || !existsSync("build/server-main.js")) {
  console.error("no production build: run `npm run build` first");
  process.exit(2);
}
const only = process.env.BENCH_ONLY?.split(",");
const profileDir = path.resolve("bench/profiles");
const nodeFlags = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
// --repeat N: every section N times; the table shows the median run of each row, with min/median/max of its ratio.
const repeatAt = process.argv.indexOf("--repeat");
const repeat = repeatAt > 0 ? Math.max(1, Number(process.argv[repeatAt + 1]) || 1) : 1;
const started = Date.now();
const loadBefore = os.loadavg();
const runs: Row[][] = [];
for (let run = 0; run < repeat; run++) {
  const rowsOfRun: Row[] = [];
  for (const bench of benches) {
    if (only && !only.includes(bench.name)) continue;
    const log = (m: string) => process.stderr.write(`  ${repeat > 1 ? `[${run + 1}/${repeat}] ` : ""}${m}\n`);
    rowsOfRun.push(...(await bench.run({ adminUrl, nodeFlags, log })));
  }
  runs.push(rowsOfRun);
}
const loadAfter = os.loadavg();
const rows: Row[] = runs[0].map((first, i) => {
  const same = runs.map((r) => r[i]).filter((r): r is Row => Boolean(r) && r.figure === first.figure);
  if (same.length < 2) return first;
  const ratios = same.map((r) => r.ratio).filter(Number.isFinite);
  const mid = same.find((r) => r.ratio === median(ratios)) ?? first;
  const spread = ratios.length
    ? `ratio over ${same.length} runs: min ${Math.min(...ratios).toFixed(2)}, median ${median(ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}`
    : "";
  return { ...mid, note: [mid.note, spread].filter(Boolean).join("; ") };
});

const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(" ");
const machine = `${process.env.BENCH_QUICK ? "QUICK RUN (small sizes, not for quoting): " : ""}${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, load average (1/5/15 min) ${load(loadBefore)} before, ${load(loadAfter)} after${repeat > 1 ? `, ${repeat} runs` : ""}, node ${process.version}`;
const num = (x: number) =>
  Number.isFinite(x) ? (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2)) : "-";
const table = [
  ["figure", "value", "baseline", "", "ratio", "target", "met?"],
  ...rows.map((r) => [
    r.figure,
    `${num(r.value)}`,
    `${num(r.baseline)}`,
    r.baselineLabel,
    `${num(r.ratio)}x`,
    r.target,
    r.met ? "yes" : "NO",
  ]),
];
const widths = table[0].map((_, i) => Math.max(...table.map((line) => line[i].length)));
const print = (line: string[]) =>
  line.map((cell, i) => (i === 1 || i === 2 || i === 4 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join("  ");
console.log(`\n${machine}; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
console.log(print(table[0]));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const line of table.slice(1)) console.log(print(line));
for (const r of rows) if (r.note) console.log(`  ${r.figure}: ${r.note}`);

const dir = path.resolve("bench/results");
mkdirSync(dir, { recursive: true });
const result = {
  at: new Date().toISOString(),
  machine,
  loadBefore,
  loadAfter,
  repeat,
  rows,
  runs: repeat > 1 ? runs : undefined,
};
const json = JSON.stringify(result, null, 2);
writeFileSync(path.join(dir, `${result.at.replace(/[:.]/g, "-")}.json`), json);
writeFileSync(path.join(dir, "latest.json"), json);
process.exit(0);
