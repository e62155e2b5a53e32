// Where the client finds and keeps one customer's OAuth grant. The client knows nothing about Prisma: the app
// implements this over the CustomerGrant row (encrypting tokens on the way in, decrypting on the way out);
// tests use MemoryGrantStore. Tokens are plain text at this interface.
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
}

/** In-memory GrantStore for tests and scripts. `failNextSave` simulates a crash between refresh and save. */
export class MemoryGrantStore implements GrantStore {
  grant: StoredGrant | null;
  lastUsedAt: Date | null = null;
  saves = 0;
  /** When set, the next saveRefreshed throws this (as if the process died after the token endpoint answered). */
  failNextSave: Error | null = null;

  constructor(initial: (GrantTokens & { workspaceId: string } & Partial<StoredGrant>) | null) {
    this.grant = initial
      ? { status: "active", statusReason: null, tokenVersion: 0, ...initial, scopes: [...initial.scopes] }
      : null;
  }

  async load(): Promise<StoredGrant | null> {
    return this.grant ? { ...this.grant, scopes: [...this.grant.scopes] } : null;
  }

  async saveRefreshed(expectedVersion: number, tokens: GrantTokens): Promise<StoredGrant | null> {
    if (this.failNextSave) {
      const err = this.failNextSave;
      this.failNextSave = null;
      throw err;
    }
    if (!this.grant || this.grant.tokenVersion !== expectedVersion) return null;
    this.grant = {
      ...this.grant,
      ...tokens,
      scopes: [...tokens.scopes],
      status: "active",
      statusReason: null,
      tokenVersion: expectedVersion + 1,
    };
    this.saves += 1;
    return this.load();
  }

  async markNeedsReconnect(reason: string, expectedVersion: number): Promise<boolean> {
    if (!this.grant || this.grant.tokenVersion !== expectedVersion) return false;
    this.grant = { ...this.grant, status: "needs_reconnect", statusReason: reason };
    return true;
  }

  async markUsed(at: Date): Promise<void> {
    this.lastUsedAt = at;
  }
}
