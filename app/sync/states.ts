// Import states shared by the worker, the status module and the admin page (client-safe: no server code).
export const SYNC_STATES = ["pending", "waiting", "imported", "updated", "skipped", "failed"] as const;
export type SyncState = (typeof SYNC_STATES)[number];
/** States a merchant can retry from the Sync status page. */
export const RETRYABLE_STATES: ReadonlySet<string> = new Set(["failed", "skipped"]);
