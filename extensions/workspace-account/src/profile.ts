// The connection as the backend's /customer-account/connection answers it, checked before a block or page shows it.

export type Profile =
  | { status: "not_configured" | "not_connected" }
  | { status: "connected" | "needs_reconnect"; workspaceId: string; connectedAt: string };

const PROFILE_STATES = ["not_configured", "not_connected", "connected", "needs_reconnect"];

export const asProfile = (body: Record<string, unknown>): Profile | null =>
  typeof body.status === "string" && PROFILE_STATES.includes(body.status) ? (body as unknown as Profile) : null;
