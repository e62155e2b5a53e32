// A worker that is stopping does not wait out long pauses (a past-orders page waiting for Shopify's query budget):
// the job gives its lease back and runs again at the next start, instead of holding it until the lease expires.
export class WorkerStopping extends Error {
  constructor() {
    super("the worker is stopping");
    this.name = "WorkerStopping";
  }
}

/** `sleep`, cut short by `signal`: then it rejects with WorkerStopping. */
export function stoppableSleep(
  sleep: (ms: number) => Promise<void>,
  signal: AbortSignal,
): (ms: number) => Promise<void> {
  return (ms) => {
    if (signal.aborted) return Promise.reject(new WorkerStopping());
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new WorkerStopping());
      signal.addEventListener("abort", onAbort, { once: true });
      sleep(ms).then(
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  };
}
