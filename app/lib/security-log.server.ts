// The log of refused requests (forged, replayed, ambiguous or oversized input): the "security" child of the app's
// one logger (logger.server.ts). Callers pass non-secret facts only: shop, topic, route, a reason code; never a
// body, a token or a signature.
import type pino from "pino";
import { logger } from "./logger.server";

export const securityLog = (): pino.Logger => logger("security");
