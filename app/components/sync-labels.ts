// Words and badge tones for the states of the sync log, shared by its pages.
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

export const STATE_LABEL: Record<string, string> = {
  attention: "Needs attention",
  pending: "Pending",
  waiting: "Waiting",
  imported: "Imported",
  updated: "Updated",
  skipped: "Skipped",
  failed: "Failed",
  resolved: "Resolved",
  created: "Created (handoff)",
};

export const KIND_LABEL: Record<string, string> = { order: "Order", shipment: "Shipment", handoff: "Cart handoff" };

/** "2026-11-22 05:14 UTC": the same on server and client, no hydration mismatch. */
export const utc = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "—");
