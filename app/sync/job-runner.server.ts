// The sync worker: leases jobs and runs each to its next state (app/sync/import-job.server.ts for orders and
// shipments, backfill.server.ts for backfill pages). Started by app/runtime (in the web process, or as
// `npm run worker`); any number of them may share one PostgreSQL database. Nothing here imports Remix.
import { randomUUID } from "node:crypto";
import type { Job } from "@prisma/client";
import { errorMessage } from "../lib/errors";
import { runBackfillJob } from "./backfill.server";
import { BULK_JOB_KIND, runBulkBackfillJob } from "./bulk-backfill.server";
import { runImportJob } from "./import-job.server";
import { FLOW_JOB_KIND } from "./flow-trigger.server";
import { runFlowTriggerJob } from "./flow-trigger-job.server";
import { resolve, type SyncDeps, type SyncLogger } from "./job-context.server";
import { backoffMs } from "../lib/backoff";
import { completeJob, DEFAULT_LEASE_MS, failJob, jobRef, leaseJobs, rescheduleJob } from "./queue.server";
import { backfillPages, leaseFailures } from "../lib/metrics.server";
import { giveUp } from "./record-state.server";
import { onWorkNotified } from "./signal.server";
import { createHeartbeat } from "./heartbeat.server";
import { stoppableSleep, WorkerStopping } from "./stopping";
import { realSleep } from "../lib/sleep";

export type { ImportFn, SyncDeps, SyncLogger } from "./job-context.server";

/**
 * Runs one leased job to its next state. Never throws: a crash becomes a retry, then a final failure. `stopping`
 * (the worker's stop) cuts a past-orders page's waits short: its lease is given back, the attempt not counted.
 * `stranded` hears of a job whose crash could not even be written (the database was unreachable): the worker
 * hands it back once the database answers again, instead of leaving it leased until its lease runs out.
 */
export async function runJob(
  input: SyncDeps,
  job: Job,
  stopping?: AbortSignal,
  stranded?: (job: Job) => void,
): Promise<void> {
  const deps = resolve(input);
  try {
    if (job.kind === "backfill") {
      if (!deps.adminGraphql) throw new Error("no Admin API client configured for backfills");
      const sleep = stopping ? stoppableSleep(deps.sleep ?? realSleep, stopping) : deps.sleep;
      await runBackfillJob(deps.prisma, job, {
        adminGraphql: deps.adminGraphql,
        now: deps.now,
        sleep,
        budget: deps.adminBudget,
      });
      await completeJob(deps.prisma, job, deps.now());
      backfillPages.series().inc();
      return;
    }
    if (job.kind === BULK_JOB_KIND) {
      if (!deps.adminGraphql) throw new Error("no Admin API client configured for backfills");
      const step = await runBulkBackfillJob(deps.prisma, job, {
        adminGraphql: deps.adminGraphql,
        now: deps.now,
        sleep: stopping ? stoppableSleep(deps.sleep ?? realSleep, stopping) : deps.sleep,
        budget: deps.adminBudget,
        fetch: deps.fetch,
      });
      // Waiting on Shopify (the operation runs, or the shop's bulk slots are taken) uses up no attempt.
      if (step) await rescheduleJob(deps.prisma, job, { runAt: step.again, error: step.why, countAttempt: false });
      else await completeJob(deps.prisma, job, deps.now());
      return;
    }
    if (job.kind === FLOW_JOB_KIND) {
      await runFlowTriggerJob(deps, job);
      return;
    }
    if (job.kind !== "order" && job.kind !== "shipment") {
      await failJob(deps.prisma, job, `unknown job kind ${job.kind}`, deps.now());
      return;
    }
    await runImportJob(deps, job, job.kind);
  } catch (error) {
    if (error instanceof WorkerStopping) {
      const released = await rescheduleJob(deps.prisma, job, {
        runAt: deps.now(),
        error: "The worker stopped during this job; it runs again.",
        countAttempt: false,
      }).catch(() => false);
      deps.logger.info({ ...jobRef(job), kind: job.kind, released }, "job handed back: the worker is stopping");
      return;
    }
    const message = errorMessage(error);
    deps.logger.error({ ...jobRef(job), kind: job.kind, err: message }, "job crashed");
    const reason = `Internal error while processing (${message.slice(0, 200)}).`;
    if (job.attempts >= job.maxAttempts) {
      const details = { attempts: job.attempts, detail: reason, failure: { kind: "internal" } };
      await giveUp(deps, job, job.recordId, { code: "attempts_exhausted", details }, reason).catch(() =>
        stranded?.(job),
      );
    } else {
      const runAt = new Date(deps.now().getTime() + backoffMs(job.attempts, undefined, deps.random));
      await rescheduleJob(deps.prisma, job, { runAt, error: reason }).catch(() => stranded?.(job));
    }
  }
}

export interface WorkerOptions {
  workerId?: string;
  /** Jobs run at once by this worker: a number, or read before every lease (the pace, app/sync/pace.server.ts). */
  concurrency?: number | (() => number);
  leaseMs?: number;
  /** Sleep between polls when there is nothing to do. */
  pollMs?: number;
  /** Hears each job's time in its slot (the pace, app/sync/pace.server.ts). */
  onJobDone?: (seconds: number) => void;
  /** Work the worker does between jobs on a timer, handed in by the process's wiring (app/runtime). */
  periodic?: PeriodicTask[];
}

/** A timed task (housekeeping: revocations, retention). Runs between leases, never beside itself. */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  /** Errors are the task's own business: one that throws is logged and tried again at its next turn. */
  run(now: Date, log: SyncLogger): Promise<void>;
}

export interface RunningWorker {
  id: string;
  /** When this worker last wrote its heartbeat (ms since the epoch): undefined before the first, or after a stop. */
  lastBeat(): number | undefined;
  /** Stops leasing, waits for running jobs to finish. */
  stop(): Promise<void>;
}

/**
 * Runs until stopped. Keeps up to `concurrency` jobs running: leases again as soon as a quarter of the slots are free
 * (not when the whole batch is done, which left the worker idle behind its slowest job); sleeps `pollMs` (or until
 * notified, or until a running job ends) when there is nothing to lease.
 */
export function startWorker(input: SyncDeps, options: WorkerOptions = {}): RunningWorker {
  const deps = resolve(input);
  const id = options.workerId ?? `worker-${process.pid}-${randomUUID().slice(0, 8)}`;
  const configured = options.concurrency ?? 4;
  const concurrencyNow = typeof configured === "function" ? configured : () => configured;
  const pollMs = options.pollMs ?? 1_000;
  let stopping = false;
  let wake: (() => void) | null = null;
  let kicked = false; // a notification or a job's end while not paused (leasing, running) ends the next pause at once
  const kick = () => {
    kicked = true;
    wake?.();
  };
  const unsubscribe = onWorkNotified(kick);
  deps.logger.info({ workerId: id, concurrency: concurrencyNow() }, "worker started");

  // The first turn comes soon after the start (at most a minute), then every `everyMs`.
  const tasks = (options.periodic ?? []).map((task) => ({ task, next: Date.now() + Math.min(60_000, task.everyMs) }));

  const heartbeat = createHeartbeat(deps.prisma, id);
  const running = new Set<Promise<void>>();
  const stopSignal = new AbortController();
  // Jobs that ended while the database was unreachable (not even their retry could be written): handed back, due
  // now and the attempt not counted, as soon as a lease shows the database answering again (and at the stop).
  const stranded = new Map<string, Job>();
  const releaseStranded = async () => {
    for (const job of [...stranded.values()]) {
      const error = "The database could not be reached when this job ended; it runs again.";
      const released = await rescheduleJob(deps.prisma, job, { runAt: deps.now(), error, countAttempt: false }).then(
        (moved) => ({ moved }),
        () => undefined,
      );
      if (!released) return; // still unreachable: the next turn
      stranded.delete(job.id);
      deps.logger.info(
        { ...jobRef(job), kind: job.kind, released: released.moved },
        "job handed back after the database came back",
      );
    }
  };
  const start = (job: Job) => {
    const began = performance.now();
    const run: Promise<void> = runJob(deps, job, stopSignal.signal, (lost) => stranded.set(lost.id, lost)).finally(
      () => {
        running.delete(run);
        options.onJobDone?.((performance.now() - began) / 1000);
        kick();
      },
    );
    running.add(run);
  };
  /** Until `ms` pass, a notification, or (when jobs run) one of them ends. */
  const pause = (ms: number) =>
    new Promise<void>((resolveSleep) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        kicked = false;
        resolveSleep();
      }
      wake = done;
      if (kicked || stopping) done();
    });

  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      await heartbeat.tick();
      const concurrency = concurrencyNow();
      const free = concurrency - running.size;
      if (free < Math.max(1, Math.floor(concurrency / 4))) {
        await pause(pollMs);
        continue;
      }
      for (const due of tasks) {
        if (Date.now() < due.next) continue;
        due.next = Date.now() + due.task.everyMs;
        await due.task.run(deps.now(), deps.logger).catch((error: unknown) => {
          deps.logger.warn({ workerId: id, task: due.task.name, err: errorMessage(error) }, "periodic task failed");
        });
      }
      let jobs: Job[] = [];
      kicked = false; // the lease sees everything that happened before it
      // At most a quarter of the slots a lease: jobs read their rows through the pool in turn, so 400 jobs started
      // at once each waited behind all the others' reads before any reached the service (0.6 s of a 100/s rate
      // unused when a worker's pace first opened up); a quarter's reads are through before the next lease's.
      const asked = Math.min(free, Math.max(4, Math.ceil(concurrency / 4)));
      try {
        jobs = await leaseJobs(deps.prisma, {
          workerId: id,
          limit: asked,
          leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
          now: deps.now(),
        });
        failures = 0;
        if (stranded.size > 0) await releaseStranded();
      } catch (error) {
        failures += 1;
        leaseFailures.series().inc();
        deps.logger.error({ workerId: id, err: errorMessage(error) }, "lease failed");
      }
      for (const job of jobs) start(job);
      if (jobs.length === asked || stopping) continue; // as many as asked: more may be waiting, or no slot is free
      // Less work than slots: wait for new work (notification or poll) or for a running job to end. A failed lease
      // backs off first; only what happens during the wait cuts it short.
      if (failures > 0) kicked = false;
      // A failed lease backs off like any retry: up to twice the poll interval per failure in a row, at most 30 s.
      await pause(failures > 0 ? backoffMs(failures + 1, undefined, deps.random, pollMs, 30_000) : pollMs);
    }
    await Promise.all(running);
    await releaseStranded();
  })();

  return {
    id,
    lastBeat: () => (stopping ? undefined : heartbeat.lastWritten()),
    async stop() {
      stopping = true;
      stopSignal.abort();
      wake?.();
      unsubscribe();
      await loop;
      await heartbeat.stop();
      deps.logger.info({ workerId: id }, "worker stopped");
    },
  };
}

/** Runs due jobs until none is left (tests, scripts). Returns how many ran. */
export async function drainJobs(
  input: SyncDeps,
  options: WorkerOptions & { maxRounds?: number } = {},
): Promise<number> {
  const deps = resolve(input);
  const id = options.workerId ?? `drain-${randomUUID().slice(0, 8)}`;
  let ran = 0;
  for (let round = 0; round < (options.maxRounds ?? 1000); round++) {
    const jobs = await leaseJobs(deps.prisma, {
      workerId: id,
      limit: typeof options.concurrency === "function" ? options.concurrency() : (options.concurrency ?? 8),
      leaseMs: options.leaseMs,
      now: deps.now(),
    });
    if (jobs.length === 0) break;
    await Promise.all(jobs.map((job) => runJob(deps, job)));
    ran += jobs.length;
  }
  return ran;
}
