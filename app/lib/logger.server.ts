// The app's one pino logger, at LOG_LEVEL; each area logs through a child named after it ("sync", "connections",
// "app"). Callers pass non-secret facts only (ids, kinds, counts, failure kinds), never tokens or payload bodies.
import pino from "pino";
import { env } from "../env.server";

let root: pino.Logger | undefined;

function rootLogger(): pino.Logger {
  root ??= pino({ level: env().LOG_LEVEL });
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
