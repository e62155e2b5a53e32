// The connection as the backend's /customer-account/connection answers it, checked before a block or page shows it,
// with how the customer's latest Connect attempt ended (the backend's word: the pages never read their own address).

export type Profile = (
  | { status: "not_configured" | "not_connected" }
  | { status: "connected" | "needs_reconnect"; workspaceId: string; connectedAt: string }
) & { attempt: Attempt | null };

export interface Attempt {
  result: string;
  finishedAt: string;
}

const PROFILE_STATES = ["not_configured", "not_connected", "connected", "needs_reconnect"];
/** The outcomes the pages have words for (connect.result.* in locales/). */
export const RESULTS = [
  "connected",
  "denied",
  "expired",
  "already_used",
  "invalid_state",
  "failed",
  "not_configured",
  "wrong_customer",
];

function asAttempt(value: unknown): Attempt | null {
  if (!value || typeof value !== "object") return null;
  const { result, finishedAt } = value as Record<string, unknown>;
  return typeof result === "string" && RESULTS.includes(result) && typeof finishedAt === "string"
    ? { result, finishedAt }
    : null;
}

export const asProfile = (body: Record<string, unknown>): Profile | null =>
  typeof body.status === "string" && PROFILE_STATES.includes(body.status)
    ? ({ ...body, attempt: asAttempt(body.attempt) } as unknown as Profile)
    : null;
