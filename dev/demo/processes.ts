// The demo's child processes: each started as `node --import tsx …` (no wrapper process, so a signal reaches the
// process that does the work), ready when a line matches. stopAll() ends them all and waits, so Ctrl-C leaves
// nothing running. Their output is for people: pino's JSON lines are formatted by pino-pretty (the children keep
// logging JSON, as in production), every line goes to the log file (./log-file.ts: a full disk drops lines, counted,
// and stops nothing), and once the demo is ready the terminal keeps only warnings and errors, so the ready banner
// stays on screen.
import { spawn, type ChildProcess } from "node:child_process";
import { prettyFactory } from "pino-pretty";
import { LogFile } from "./log-file";

export interface Child {
  name: string;
  process: ChildProcess;
  /** The first capture group of the ready line (or the whole match). */
  ready: Promise<string>;
  exited: Promise<number | null>;
}

const children: Child[] = [];

const PRETTY = { translateTime: "HH:MM:ss", ignore: "pid,hostname", singleLine: true };
const colored = prettyFactory({ ...PRETTY, colorize: Boolean(process.stdout.isTTY) });
const plain = prettyFactory({ ...PRETTY, colorize: false });
const WARN = 40; // pino's level number for "warn"

let logFile: LogFile | null = null;
let quiet = false;

/** Every child's output also goes to `file` (formatted, without colour). */
export function logTo(file: string): LogFile {
  logFile = new LogFile(file, (message) => process.stderr.write(`${message}\n`));
  return logFile;
}

/** From now on the terminal shows only warnings and errors (and anything on stderr that is not a log line). */
export function quietTerminal(): void {
  quiet = true;
}

export function closeLog(): Promise<void> {
  logFile?.close();
  return Promise.resolve();
}

/** One line of a child's output, for the terminal and the log file. */
export function formatLine(
  name: string,
  line: string,
  fromStderr: boolean,
  colour = true,
): { text: string; important: boolean } {
  let level: number | null = null;
  if (line.startsWith("{")) {
    try {
      const parsed = JSON.parse(line) as { level?: unknown };
      if (typeof parsed.level === "number") level = parsed.level;
    } catch {
      // not a log line after all
    }
  }
  const body = level === null ? `${line}\n` : (colour ? colored : plain)(line);
  return { text: body.replace(/^(?=.)/gm, `[${name}] `), important: level === null ? fromStderr : level >= WARN };
}

export function startNode(
  name: string,
  args: string[],
  env: Record<string, string | undefined>,
  /** null: readiness is checked another way (waitForHttp). */
  readyLine: RegExp | null,
  options: { preload?: string[] } = {},
): Child {
  const imports = ["tsx", ...(options.preload ?? [])].flatMap((module) => ["--import", module]);
  const child = spawn(process.execPath, [...imports, ...args], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let resolveReady!: (value: string) => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<string>((resolve, reject) => ((resolveReady = resolve), (rejectReady = reject)));
  ready.catch(() => {});
  let pending = "";
  const onData = (stream: NodeJS.WriteStream) => {
    let partial = "";
    return (chunk: Buffer) => {
      const text = chunk.toString();
      pending = (pending + text).slice(-4096);
      const match = readyLine?.exec(pending);
      if (match) resolveReady(match[1] ?? match[0]);
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      if (partial.length > 65_536) {
        lines.push(partial); // a line without end: shown in pieces rather than held forever
        partial = "";
      }
      for (const line of lines) {
        if (!line) continue;
        const fromStderr = stream === process.stderr;
        const shown = formatLine(name, line, fromStderr, Boolean(stream.isTTY));
        logFile?.write(formatLine(name, line, fromStderr, false).text);
        if (!quiet || shown.important) stream.write(shown.text);
      }
    };
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
