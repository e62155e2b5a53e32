// How many jobs the worker runs at once: what the service allows times how long it takes to answer (Little's law),
// so the service's rate sets the pace, not its latency. A service allowing 100 requests a second that answers in 2 s
// keeps about 200 imports in flight; one answering in 50 ms, a handful.
//
// Bounds: never below `min` (WORKER_CONCURRENCY); never above `max` (WORKER_MAX_CONCURRENCY, memory: each running
// job holds its payload) nor what the database pool can serve. An import holds a connection for its few short
// statements (a fiftieth of a second, JOBS_PER_CONNECTION a second), none during its service call, so a
// connection serves JOBS_PER_CONNECTION jobs for each second a job lasts: a service answering in 2 s, 100 jobs a
// connection, and a pool of 5 serves the 300 jobs 100/s asks for, not a fixed 250.
//
// A struggling service (5xx, timeouts, connections failing) is not one to press harder because it answers slowly:
// such an answer halves the limit and its time is not learned; the limit then grows back by a tenth a second while
// answers are healthy. Answers that only say "not now" (429) or "no" (4xx) are healthy: the rate handles those.
import { workerConcurrency } from "../lib/metrics.server";

/** Jobs per pool connection and second of a job's call: its statements take a few ms of a job that mostly waits. */
export const JOBS_PER_CONNECTION = 50;

export interface PaceOptions {
  min: number;
  max: number;
  /** The service's rate per client as this process may use it (the scheduler's knowledge). */
  rateOf: (client: string) => number | undefined;
  /** The database pool's connections (the ceiling follows it); none: only `max`. */
  connections?: number;
  now?: () => number;
}

/** A moving average over the last twenty samples or so: steady, yet it follows a change within seconds. */
const average = (before: number | undefined, sample: number) =>
  before === undefined ? sample : before + (sample - before) * 0.05;

export class Pace {
  private readonly latency = new Map<string, number>();
  /** A job's own time beside its service call (its statements, its turn on the CPU), and its wait for a slot. */
  private jobSeconds: number | undefined;
  private callSeconds: number | undefined;
  private waitSeconds: number | undefined;
  private readonly now: () => number;
  /** After a struggle: the limit it was cut to, and when. */
  private cut: { limit: number; at: number } | undefined;
  private last: number;

  constructor(private readonly options: PaceOptions) {
    this.now = options.now ?? Date.now;
    this.last = options.min;
  }

  /** One answer of the service to `client`: its time, and whether the service was struggling. */
  observe(client: string, seconds: number, struggling: boolean): void {
    if (struggling) {
      const limit = Math.max(this.options.min, Math.floor(this.limit() / 2));
      this.cut = { limit, at: this.now() };
      return;
    }
    this.latency.set(client, average(this.latency.get(client), seconds));
    this.callSeconds = average(this.callSeconds, seconds);
  }

  /** A job's whole time in its slot (the worker), and a request's wait for its rate slot (the scheduler). */
  observeJob(seconds: number): void {
    this.jobSeconds = average(this.jobSeconds, seconds);
  }

  observeWait(seconds: number): void {
    this.waitSeconds = average(this.waitSeconds, seconds);
  }

  /** Memory's ceiling, and the pool's: `connections` x JOBS_PER_CONNECTION for each second a job's call lasts. */
  private ceiling(): number {
    const { max, min, connections } = this.options;
    if (connections === undefined) return max;
    const perConnection = Math.floor(JOBS_PER_CONNECTION * Math.max(1, this.callSeconds ?? 0));
    return Math.max(min, Math.min(max, connections * perConnection));
  }

  /** Jobs to run at once now. */
  limit(): number {
    // A slot is held for the service's answer and the job's own work; waiting for the rate is not a reason for more.
    const own = Math.max(0, (this.jobSeconds ?? 0) - (this.callSeconds ?? 0) - (this.waitSeconds ?? 0));
    let target = 0;
    for (const [client, seconds] of this.latency) {
      const rate = this.options.rateOf(client);
      if (rate !== undefined) target += rate * (seconds + own);
    }
    // Half as many again as the product, and two: answers and jobs vary, slots come in batches, and a job too many
    // only waits for its slot in the scheduler, while a job too few leaves the rate unused.
    let limit = Math.ceil(target * 1.5 - 1e-9) + 2; // (less float noise: 100/s x 2 s x 1.5 is 300, not 301)
    if (this.cut) {
      const recovered = this.cut.limit * Math.pow(1.1, (this.now() - this.cut.at) / 1000);
      if (recovered >= limit) this.cut = undefined;
      else limit = Math.floor(recovered);
    }
    limit = Math.min(this.ceiling(), Math.max(this.options.min, limit));
    if (limit !== this.last) {
      this.last = limit;
      workerConcurrency.series().set(limit);
    }
    return limit;
  }
}

/** `inner`, timed: every answer (or failure) of the service goes to `pace`. */
export function pacedFetch(pace: Pace, client: string, inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const started = performance.now();
    try {
      const response = await inner(input, init);
      pace.observe(client, (performance.now() - started) / 1000, response.status >= 500);
      return response;
    } catch (error) {
      pace.observe(client, (performance.now() - started) / 1000, true); // a timeout or a failed connection
      throw error;
    }
  };
}
