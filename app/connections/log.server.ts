// One pino logger for the connection flows. Callers pass non-secret facts only (ids, kinds, counts).
import pino from "pino";
import { env } from "../env.server";

let logger: pino.Logger | undefined;
export function connectionsLog(): pino.Logger {
  logger ??= pino({ name: "connections", level: env().LOG_LEVEL });
  return logger;
}

/** The shape oauth-flow.server.ts takes: an event name and facts. */
export const logEvent = (event: string, facts: Record<string, unknown>) => connectionsLog().info({ event, ...facts }, event);
