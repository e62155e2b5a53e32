// The app's one pino logger, at LOG_LEVEL; each area logs through a child named after it ("sync", "connections",
// "app"). Callers pass non-secret facts only (ids, kinds, counts, failure kinds), never tokens or payload bodies.
import pino from "pino";
import { env } from "../env.server";

let root: pino.Logger | undefined;

/**
 * pino's options at `level`: JSON lines everywhere (production, tests, the demo, whose terminal formats them
 * itself), except under `npm run dev`, where a person reads them: pino-pretty (a devDependency) as a transport.
 */
export function pinoOptions(level: string, name?: string): pino.LoggerOptions {
  const options: pino.LoggerOptions = { level, ...(name ? { name } : {}) };
  if (process.env.NODE_ENV !== "development") return options;
  return { ...options, transport: { target: "pino-pretty", options: { colorize: true, translateTime: "HH:MM:ss", ignore: "pid,hostname" } } };
}

function rootLogger(): pino.Logger {
  root ??= pino(pinoOptions(env().LOG_LEVEL));
  return root;
}

const children = new Map<string, pino.Logger>();

/** The child logger of one area (created once). */
export function logger(area: string): pino.Logger {
  let child = children.get(area);
  if (!child) {
    child = rootLogger().child({ name: area });
    children.set(area, child);
  }
  return child;
}
