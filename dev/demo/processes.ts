// The demo's child processes: each started as `node --import tsx …` (no wrapper process, so a signal reaches the
// process that does the work), its output prefixed with its name, ready when a line matches. stopAll() ends them
// all and waits, so Ctrl-C leaves nothing running.
import { spawn, type ChildProcess } from "node:child_process";

export interface Child {
  name: string;
  process: ChildProcess;
  /** The first capture group of the ready line (or the whole match). */
  ready: Promise<string>;
  exited: Promise<number | null>;
}

const children: Child[] = [];

export function startNode(
  name: string,
  args: string[],
  env: Record<string, string | undefined>,
  /** null: readiness is checked another way (waitForHttp). */
  readyLine: RegExp | null,
  options: { preload?: string[] } = {},
): Child {
  const imports = ["tsx", ...(options.preload ?? [])].flatMap((module) => ["--import", module]);
  const child = spawn(process.execPath, [...imports, ...args], { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  let resolveReady!: (value: string) => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<string>((resolve, reject) => ((resolveReady = resolve), (rejectReady = reject)));
  ready.catch(() => {});
  let pending = "";
  const onData = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    const text = chunk.toString();
    stream.write(text.replace(/^(?=.)/gm, `[${name}] `));
    pending = (pending + text).slice(-4096);
    const match = readyLine?.exec(pending);
    if (match) resolveReady(match[1] ?? match[0]);
  };
  child.stdout!.on("data", onData(process.stdout));
  child.stderr!.on("data", onData(process.stderr));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => {
      rejectReady(new Error(`${name} exited (${signal ?? `code ${code}`}) before it was ready`));
      resolve(code);
    }),
  );
  const entry = { name, process: child, ready, exited };
  children.push(entry);
  return entry;
}

/** SIGTERM to every child still running, SIGKILL to any that has not exited after `graceMs`. */
export async function stopAll(graceMs = 8_000): Promise<void> {
  const running = children.filter((c) => c.process.exitCode === null && c.process.signalCode === null);
  for (const c of running) c.process.kill("SIGTERM");
  const timer = setTimeout(() => running.forEach((c) => c.process.kill("SIGKILL")), graceMs);
  await Promise.all(running.map((c) => c.exited));
  clearTimeout(timer);
}

/** Resolves when `url` answers 200 (polling), rejects when the child exits first or `timeoutMs` passes. */
export async function waitForHttp(url: string, child: Child, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void child.exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`${child.name} exited before it answered`);
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer ${url} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
