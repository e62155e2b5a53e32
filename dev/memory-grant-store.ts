// An in-memory GrantStore for the tests and the bench's worker processes: the grant in a field, a promise-chain
// lock, and a switch that makes saves fail as if the database went away after the token endpoint answered.
import type { GrantStore, GrantTokens, StoredGrant } from "../app/service/client.server";

/** In-memory GrantStore. `failSaves` simulates a crash between refresh and save. */
export class MemoryGrantStore implements GrantStore {
  grant: StoredGrant | null;
  lastUsedAt: Date | null = null;
  saves = 0;
  /** The next `failSaves` saveRefreshed calls throw, as if the database went away after the token endpoint answered. */
  failSaves = 0;

  constructor(initial: (GrantTokens & { workspaceId: string } & Partial<StoredGrant>) | null) {
    this.grant = initial
      ? { status: "active", statusReason: null, tokenVersion: 0, ...initial, scopes: [...initial.scopes] }
      : null;
  }

  async load(): Promise<StoredGrant | null> {
    return this.grant ? { ...this.grant, scopes: [...this.grant.scopes] } : null;
  }

  async saveRefreshed(expectedVersion: number, tokens: GrantTokens): Promise<StoredGrant | null> {
    if (this.failSaves > 0) {
      this.failSaves -= 1;
      throw new Error("simulated crash: the grant store is unavailable");
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

  private lock: Promise<unknown> = Promise.resolve();

  /** A promise-chain mutex: enough to stand in for the database lock in tests. */
  withRefreshLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }
}
