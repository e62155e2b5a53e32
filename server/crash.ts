// After an uncaught exception Node documents the process as being in an undefined state: carrying on is unsafe.
// So: log it, stop taking work, let what runs finish (bounded), and exit non-zero for the process manager (or the
// demo) to start a fresh one.

export function describeError(err: unknown) {
  return err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { value: String(err) };
}

/**
 * `log` records the exception; `drain` stops accepting, finishes running work and exits (non-zero). A drain that
 * hangs or throws is cut short after `graceMs`: exit 1 regardless.
 */
export function exitOnCrash(
  log: (err: ReturnType<typeof describeError>) => void,
  drain: () => Promise<void>,
  graceMs = 10_000,
): void {
  let crashed = false;
  process.on("uncaughtException", (err) => {
    try {
      log(describeError(err));
    } catch {
      // the logger itself failed: exit anyway
    }
    if (crashed) return;
    crashed = true;
    process.exitCode = 1;
    setTimeout(() => process.exit(1), graceMs).unref();
    drain().then(
      () => process.exit(1),
      () => process.exit(1),
    );
  });
}
