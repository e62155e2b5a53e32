// The connection flows' logger (a child of app/lib/logger.server.ts). Non-secret facts only (ids, kinds, counts).
import { logger } from "../lib/logger.server";

const connectionsLog = () => logger("connections");

/** The shape the OAuth flow takes: an event name and facts. */
export const logEvent = (event: string, facts: Record<string, unknown>) =>
  connectionsLog().info({ event, ...facts }, event);
