// The sync log's kinds and states: shared by the server modules and the page's filter controls (no server code).
import { SYNC_STATES } from "../sync/states";

export const LOG_KINDS = ["order", "shipment", "handoff"] as const;
export type LogKind = (typeof LOG_KINDS)[number];
/** Record states, plus "attention" (failed and not marked resolved) and "resolved"; handoffs add "created". */
export const LOG_STATES = ["attention", ...SYNC_STATES, "resolved", "created"] as const;
export type LogState = (typeof LOG_STATES)[number];
