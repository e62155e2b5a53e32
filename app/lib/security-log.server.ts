// One pino logger for refused requests (forged, replayed, ambiguous or oversized input). Callers pass non-secret
// facts only: shop, topic, route, a reason code; never a body, a token or a signature.
import pino from "pino";
import { env } from "../env.server";
import { pinoOptions } from "./logger.server";

let logger: pino.Logger | undefined;
export function securityLog(): pino.Logger {
  logger ??= pino(pinoOptions(env().LOG_LEVEL, "security"));
  return logger;
}
