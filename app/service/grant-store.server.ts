// Where the client finds and keeps one customer's OAuth grant. The client knows nothing about Prisma: the app
// implements this over the CustomerGrant row (encrypting tokens on the way in, decrypting on the way out);
// tests use an in-memory one (dev/memory-grant-store.ts). Tokens are plain text at this interface.
//
// Mapping to CustomerGrant: accessToken ↔ accessTokenEnc, refreshToken ↔ refreshTokenEnc, scopes ↔ scopes
// (space-separated), accessTokenExpiresAt, workspaceId, status, statusReason, tokenVersion, lastUsedAt.

export type GrantStatus = "active" | "needs_reconnect";

export interface GrantTokens {
  accessToken: string;
  /** Null when the service did not say (`expires_in` absent): treat as valid until a 401. */
  accessTokenExpiresAt: Date | null;
  /** Null when the service issued none (then a rejected access token means reconnect). */
  refreshToken: string | null;
  scopes: string[];
}

export interface StoredGrant extends GrantTokens {
  workspaceId: string;
  status: GrantStatus;
  statusReason: string | null;
  /** Bumped by every successful saveRefreshed; the compare-and-set guard. */
  tokenVersion: number;
  /** The service origins that issued the tokens (origins.server.ts); null/absent = not bound. */
  boundOrigins?: string | null;
}

export interface GrantStore {
  /** The grant as stored now, or null when there is none (never connected, or deleted). */
  load(): Promise<StoredGrant | null>;
  /**
   * Compare-and-set: only when the stored tokenVersion still equals `expectedVersion`, write all of `tokens`
   * (access token, its expiry, refresh token, scopes) in ONE atomic update, set tokenVersion to
   * expectedVersion + 1 and status "active". Returns the new grant, or null when the version had moved (another
   * worker refreshed first) and nothing was written. Prisma: `updateMany({ where: { id, tokenVersion:
   * expectedVersion }, data: { ...encrypted, tokenVersion: { increment: 1 } } })` and check `count === 1`.
   */
  saveRefreshed(expectedVersion: number, tokens: GrantTokens): Promise<StoredGrant | null>;
  /**
   * Compare-and-set too: only when tokenVersion still equals `expectedVersion`, set status "needs_reconnect" and
   * statusReason = `reason` (plain words for the merchant; never a token). Returns whether it was written.
   * Tokens are left as they are; the version is not bumped.
   */
  markNeedsReconnect(reason: string, expectedVersion: number): Promise<boolean>;
  /** Optional: record a successful use (lastUsedAt). Failures here must not fail the import. */
  markUsed?(at: Date): Promise<void>;
  /**
   * Optional but recommended when several processes share grants: run `fn` holding an exclusive per-grant lock
   * that the database releases by itself if the process dies (Prisma: an interactive transaction taking
   * `pg_advisory_xact_lock(<hash of grant id>)`; an advisory lock, not a row lock, so saveRefreshed from another
   * connection inside `fn` is not blocked). The client re-reads the grant inside the lock, so only one process
   * presents a given refresh token: presenting a used one makes the service revoke the whole authorization.
   */
  withRefreshLock?<T>(fn: () => Promise<T>): Promise<T>;
}

/** A grant whose stored tokens do not open: its statusReason (the admin words it by code, app/admin/reason-words.ts). */
export const UNREADABLE_REASON =
  "the stored tokens could not be decrypted (changed in the database, or their key was removed); the customer must reconnect the workspace";
