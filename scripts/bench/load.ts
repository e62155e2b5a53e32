// Load on a server and timed samples: autocannon timed from the first request to the last answer (closed loop), paced
// open-loop requests that charge a stall to every request queued behind it, and percentiles of sorted samples.
import http from "node:http";
import autocannon from "autocannon";

/** The p-th percentile of sorted samples. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Times `run` `count` times after a short warm-up, one at a time; the durations in ms, sorted. */
export async function timeSamples(
  run: () => Promise<unknown>,
  count: number,
  warmup = Math.min(20, count),
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await run();
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    out.push(performance.now() - started);
  }
  return out.sort((a, b) => a - b);
}

export interface Measured {
  /** Responses per second, from the first request to the last response. */
  perSecond: number;
  result: autocannon.Result;
}

/**
 * autocannon with a fixed `amount`, timed here: its own `duration` ends on its next one-second tick, so a 2.7 s run
 * reads 3.02 s, and at a few thousand requests that rounding alone moved a rate by up to a third.
 */
export function measuredLoad(options: autocannon.Options): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let responses = 0;
    let last = started;
    const instance = autocannon(options, (error, result) => {
      if (error) return reject(error);
      resolve({ perSecond: responses / Math.max(0.001, (last - started) / 1000), result });
    });
    instance.on("response", () => {
      responses += 1;
      last = performance.now();
    });
  });
}

export interface Paced {
  /** Latency percentiles in ms, each from the moment its request was due, not from when it was sent. */
  p50: number;
  p99: number;
  max: number;
  failed: number;
}

/**
 * Open-loop load: `rate` requests a second for `seconds`, each sent when it is due whatever the answers before it
 * did (as Shopify sends webhooks), over as many keep-alive connections as are needed. A request's latency counts
 * from the moment it was due, so a server that stalls is charged for the requests that queued behind the stall
 * (closed-loop tools, autocannon among them, stop sending while they wait and hide that).
 */
export async function pacedLoad(
  port: number,
  rate: number,
  seconds: number,
  request: () => { path: string; headers: Record<string, string>; body: string },
): Promise<Paced> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  let failed = 0;
  const answers: Promise<void>[] = [];
  const start = performance.now() + 20;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const { path, headers, body } = request();
    answers.push(
      new Promise<void>((resolve) => {
        const req = http.request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path,
            headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
            agent,
          },
          (res) => {
            res.resume();
            res.once("end", () => {
              if (res.statusCode !== 200) failed += 1;
              latencies.push(performance.now() - due);
              resolve();
            });
          },
        );
        req.once("error", () => {
          failed += 1;
          resolve();
        });
        req.end(body);
      }),
    );
  }
  await Promise.all(answers);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN, failed };
}
