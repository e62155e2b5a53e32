// The interface of a rate budget shared by every process (the PostgreSQL store is app/sync/shared-rate.server.ts):
// named here so the rate limiter does not import the database.
export interface SharedPolicy {
  capacity: number;
  perSecond: number;
}

export interface LeaseRequest {
  /** Slots wanted now (0: only learn and teach). */
  want: number;
  /** Requests of headroom kept below the capacity. */
  headroom: number;
  /** A policy this process learned from an answer since its last lease. */
  policy?: SharedPolicy;
  /** The bucket's level an answer's `RateLimit` implies, as of now. */
  floorLevel?: number;
  /** A 429's wait, from now. */
  blockedForMs?: number;
  /** Slots this process spent ahead of this lease (a shopper's click): charged whatever the room. */
  spent?: number;
  /**
   * Grants are held by this process, apart from the level, until `released` (the Admin API's cost ledger: a query
   * holds its requested cost while in flight; the level, like Shopify's bucket, never restores below empty, so
   * points in flight counted in it leaked away while the bucket was full and the query was on its way).
   */
  hold?: boolean;
  /** Nothing granted unless all of `want` fits (a waiter never holds part of what it needs). */
  whole?: boolean;
  /** Points held without a check (a query sent while nobody knows the bucket's size). */
  held?: number;
  /** Held points given back (the query answered, refused or never sent). */
  released?: number;
  /** What an answered query cost, added to the level (an answer's own level, `floorLevel`, wins when higher). */
  arrived?: number;
  /**
   * While no process knows the policy: at most `slots` granted before an answer teaches it, leaking at `perSecond`
   * (the scheduler's first wave, shared by every process). Without it nothing is granted until the policy is known.
   */
  firstWave?: { slots: number; perSecond: number };
}

export interface Lease {
  granted: number;
  policy?: SharedPolicy;
  /** The shared level after the grant, and the wait until as many slots as wanted are free (0: room now). */
  level: number;
  waitMs: number;
  /** Processes that drew on this budget within the last 30 s (this one included). */
  peers: number;
}

export interface SharedRateStore {
  lease(client: string, request: LeaseRequest): Promise<Lease>;
}
