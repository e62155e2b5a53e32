// The one real sleep. Modules that wait take a `sleep` collaborator (tests pass one that only records, or advances
// a fake clock) and default to this.

/** Waits `ms`; with a `signal`, rejects with its reason as soon as it aborts (at once when it already has). */
export const realSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
