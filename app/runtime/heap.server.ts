// How far V8 lets the heap grow before its next full collection. By default it picks the factor itself, up to four
// times what survived the last one when the process allocates fast, and a bulk backfill allocates fast for
// minutes: reading a 1,000,000-line result file, the heap swung between 55 and 190 MiB and the process's RSS grew
// by 128-177 MiB, nearly all of it garbage waiting for a full collection (docs/performance.md). A fixed factor of
// 1.5 held it to 24 MiB (27-59 MiB on 2.55 M lines) at the same speed, and left the intake's figures as they were.
// Set once by every process that runs the sync worker.
import v8 from "node:v8";

/** The old generation may grow to (1 + this / 100) times what survived the last full collection. */
export const HEAP_GROWING_PERCENT = 50;

export function boundHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
