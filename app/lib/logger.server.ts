// The app's one pino logger, at LOG_LEVEL; each area logs through a child named after it ("sync", "connections",
// "app", "shopify" for Shopify's libraries). Callers pass non-secret facts only (ids, kinds, counts, failure
// kinds), never tokens or payload bodies; and every line, whoever wrote it, goes through the same redaction
// (./log-redaction.ts) at every level, debug included. Every value is a JSON string: a newline in a request value
// never starts a line.
import pino from "pino";
import { env } from "../env.server";
import { redactFields, redactText } from "./log-redaction";

let root: pino.Logger | undefined;

/**
 * pino's options at `level`: JSON lines everywhere (production, tests, the demo, whose terminal formats them
 * itself), except under `npm run dev`, where a person reads them: pino-pretty (a devDependency) as a transport.
 */
export function pinoOptions(level: string, name?: string): pino.LoggerOptions {
  const options: pino.LoggerOptions = {
    level,
    ...(name ? { name } : {}),
    hooks: {
      logMethod(args, method) {
        // The message (and any format arguments): Shopify's library puts its request values there.
        method.apply(
          this,
          args.map((arg) => (typeof arg === "string" ? redactText(arg) : arg)) as Parameters<typeof method>,
        );
      },
    },
    formatters: { log: (fields) => redactFields(fields) as Record<string, unknown> },
  };
  if (process.env.NODE_ENV !== "development") return options;
  return {
    ...options,
    transport: {
      target: "pino-pretty",
      options: { colorize: true, translateTime: "HH:MM:ss", ignore: "pid,hostname" },
    },
  };
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
