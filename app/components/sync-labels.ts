// Words and badge tones for the states of the sync log, shared by its pages: message keys, worded in the admin's
// language by the page (app/locales/admin/*.json).
import type { MessageKey } from "../i18n/catalog";
import type { Translator } from "../i18n/translate";

export type Tone = "success" | "info" | "attention" | "warning" | "critical" | undefined;

export const STATE_TONE: Record<string, Tone> = {
  imported: "success",
  updated: "success",
  created: "success",
  pending: "info",
  waiting: "attention",
  skipped: "warning",
  failed: "critical",
};

export const STATE_LABEL: Record<string, MessageKey> = {
  attention: "state.attention",
  pending: "state.pending",
  waiting: "state.waiting",
  imported: "state.imported",
  updated: "state.updated",
  skipped: "state.skipped",
  failed: "state.failed",
  resolved: "state.resolved",
  created: "state.created",
};

export const KIND_LABEL: Record<string, MessageKey> = {
  order: "kind.order",
  shipment: "kind.shipment",
  handoff: "kind.handoff",
};

/** A state's name in the admin's language (the raw state for one the app does not know). */
export const stateName = (t: Translator["t"], state: string) => (STATE_LABEL[state] ? t(STATE_LABEL[state]) : state);
