// Group commit (docs/decisions/0004): deliveries that arrive together share ONE statement (one round trip, one
// implicit transaction; ./intake-write.server.ts). Each caller's promise settles only after that statement
// committed, so a 200 always means "stored"; when the statement fails, the batch is written again in halves, so
// only the delivery the database refuses gets the error (the route answers 5xx and Shopify retries) and nothing is
// half-written. A redelivery (same shop + event id) is recorded once, also when both copies land in one batch.
import type { Db } from "../db/sql.server";
import { intakeBatchDeliveries } from "../lib/metrics.server";
import {
  existingIds,
  keyOf,
  toRow,
  writeDeliveries,
  type Delivery,
  type IntakeResult,
  type Row,
} from "./intake-write.server";

export interface BatcherOptions {
  /**
   * How long the first delivery of a batch waits for company while another batch is in flight (with none in flight
   * it goes at once, with whatever arrived in the same turn of the event loop). Short: it adds to the answer's time.
   */
  windowMs?: number;
  /** A batch this full is written at once. */
  maxItems?: number;
  /** Batches written at the same time (each holds one database connection while it runs). */
  maxInFlight?: number;
}

export interface IntakeBatcher {
  submit(delivery: Delivery): Promise<IntakeResult>;
  /** Writes what is pending and waits for every batch in flight. */
  flush(): Promise<void>;
}

interface Pending {
  delivery: Delivery;
  resolve: (result: IntakeResult) => void;
  reject: (error: unknown) => void;
}

/** Writes one batch and settles every caller in it (all resolved after the commit, or all rejected). */
async function writeBatch(db: Db, batch: Pending[]): Promise<void> {
  // Copies of one event inside the batch: the first is written, the others are answered as redeliveries of it.
  const rows = new Map<string, Row>();
  for (const item of batch) if (!rows.has(keyOf(item.delivery))) rows.set(keyOf(item.delivery), toRow(item.delivery));
  try {
    const written = await writeDeliveries(db, [...rows.values()]);
    const missing = [...rows.values()].filter((r) => !written.has(r.key)).map((r) => r.delivery);
    const existing = missing.length > 0 ? await existingIds(db, missing) : new Map<string, string>();
    const answered = new Set<string>();
    for (const item of batch) {
      const key = keyOf(item.delivery);
      const mine = written.get(key);
      if (mine && !answered.has(key)) {
        answered.add(key);
        item.resolve({ deliveryId: mine.deliveryId, jobId: mine.jobId ?? undefined, duplicate: false });
      } else {
        // Stored before (this batch or an earlier one); its id when we can see it (a concurrent insert may not be).
        item.resolve({ deliveryId: mine?.deliveryId ?? existing.get(key) ?? "", duplicate: true });
      }
    }
  } catch (error) {
    // One delivery PostgreSQL refuses must not fail the others written with it: the batch is written again in
    // halves (copies of one event kept together) until the refused delivery is alone, and only it fails.
    const keys = [...rows.keys()];
    if (keys.length < 2) {
      for (const item of batch) item.reject(error);
      return;
    }
    const firstHalf = new Set(keys.slice(0, Math.ceil(keys.length / 2)));
    await writeBatch(
      db,
      batch.filter((item) => firstHalf.has(keyOf(item.delivery))),
    );
    await writeBatch(
      db,
      batch.filter((item) => !firstHalf.has(keyOf(item.delivery))),
    );
  }
}

/**
 * One delivery through the same statement, outside any batcher (backfill tests, scripts): resolves once it is
 * committed, as `submit` does.
 */
export function recordSyncDelivery(db: Db, delivery: Delivery): Promise<IntakeResult> {
  return new Promise<IntakeResult>((resolve, reject) => void writeBatch(db, [{ delivery, resolve, reject }]));
}

export function createIntakeBatcher(db: Db, options: BatcherOptions = {}): IntakeBatcher {
  const windowMs = options.windowMs ?? 1;
  const maxItems = options.maxItems ?? 128;
  const maxInFlight = options.maxInFlight ?? 4;
  const pending: Pending[] = [];
  let timer: { cancel(): void } | null = null;
  const inFlight = new Set<Promise<void>>();
  const batchSize = intakeBatchDeliveries.series();

  function startBatch() {
    timer?.cancel();
    timer = null;
    if (pending.length === 0 || inFlight.size >= maxInFlight) return;
    const batch = pending.splice(0, maxItems);
    batchSize.observe(batch.length);
    const running = writeBatch(db, batch).finally(() => {
      inFlight.delete(running);
      // What queued up while every slot was busy goes out now, already a batch.
      if (pending.length > 0) schedule();
    });
    inFlight.add(running);
  }

  function schedule() {
    if (pending.length >= maxItems) return startBatch();
    if (timer) return;
    // With nothing in flight there is no statement to wait beside: the batch is what arrived in this turn of the
    // event loop. While statements run, the window lets the next batch grow.
    if (inFlight.size === 0) {
      const immediate = setImmediate(startBatch);
      timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(startBatch, windowMs);
      timer = { cancel: () => clearTimeout(timeout) };
    }
  }

  return {
    submit(delivery) {
      return new Promise<IntakeResult>((resolve, reject) => {
        pending.push({ delivery, resolve, reject });
        schedule();
      });
    },
    async flush() {
      while (pending.length > 0 || inFlight.size > 0) {
        startBatch();
        await Promise.allSettled([...inFlight]);
      }
    },
  };
}
