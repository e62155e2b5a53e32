// The bench's sections, in the order they run and print. Adding a row: write a Bench (see common.ts) in its own
// file and list it here.
import type { Bench } from "./common";
import { backfillBench } from "./backfill";
import { backlogBench } from "./backlog-bench";
import { bulkBackfillBench } from "./bulk-backfill";
import { drainBench } from "./drain";
import { handoffBench } from "./handoff";
import { intake } from "./intake";
import { scaleBench } from "./scale";
import { syncLogBench } from "./sync-log";

export const benches: Bench[] = [
  intake,
  drainBench,
  backlogBench,
  syncLogBench,
  handoffBench,
  backfillBench,
  bulkBackfillBench,
  scaleBench,
];
