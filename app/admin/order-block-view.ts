// What /api/order-block answers (app/admin/order-block.server.ts): types only, shared with the order page block that
// renders it (extensions/order-sync-block), so the two cannot drift apart.
export interface BlockRecord {
  id: string;
  kind: "order" | "shipment";
  externalId: string;
  state: string;
  /** The time that matters for the state: imported at, else the last attempt, else when it arrived (ISO). */
  at: string;
  reason: string | null;
  reasonCode: string | null;
  /** The workspace it went to, or (not imported yet) the one its customer is connected to now. */
  workspaceId: string | null;
  resolved: boolean;
  canRetry: boolean;
  canResolve: boolean;
  /** The record's page in the app (relative to the app). */
  path: string;
}

export type OrderBlockView =
  | { status: "unknown"; paused: boolean }
  | { status: "no_workspace"; paused: boolean; order: BlockRecord | null; shipments: BlockRecord[] }
  | { status: "ok"; paused: boolean; order: BlockRecord | null; shipments: BlockRecord[] };
