// The client's GrantStore over the CustomerGrant row of one (shop, customer): tokens are encrypted on the way in
// and decrypted on the way out. The sync engine uses it for imports; token refreshes are compare-and-set on
// tokenVersion, so two workers refreshing at once cannot both save (the loser reloads and uses the winner's).
import { Prisma, type PrismaClient } from "@prisma/client";
import { rawQuery, ts } from "../db/sql.server";
import type { GrantStore, GrantTokens, StoredGrant } from "../service/client.server";
import {
  bindings,
  openFor,
  openOptional,
  sealFor,
  sealOptional,
  SecretBoxError,
  type Keyring,
} from "../crypto/secret-box.server";

export interface GrantKey {
  shop: string;
  customerId: string;
}

/** Reasons are shown to the merchant; keep them short and free of anything that looks like a token. */
function cleanReason(reason: string): string {
  return reason.replace(/[\r\n\t]+/g, " ").slice(0, 300);
}

/** Shown on the Customers page for a grant whose stored tokens do not open (kept with the grant store's contract). */
export { UNREADABLE_REASON } from "../service/client.server";
import { UNREADABLE_REASON } from "../service/client.server";

export interface GrantStoreOptions {
  keyring?: Keyring;
  /**
   * PostgreSQL with several processes (web + worker): take a transaction-scoped advisory lock per grant around a
   * refresh, so only one process ever presents a given refresh token. Leave off on PGlite (one process, one
   * connection: a transaction held open there would block the store's own writes).
   */
  advisoryLock?: boolean;
}

/** What load() reads of the row, through the driver on every import (rawQuery: its time read as a UTC instant). */
interface GrantRow {
  accessTokenEnc: string;
  accessTokenExpiresAt: Date | null;
  refreshTokenEnc: string | null;
  scopes: string;
  workspaceId: string;
  status: string;
  statusReason: string | null;
  tokenVersion: number;
  boundOrigins: string | null;
}

/**
 * "Last used" (the Customers page) is written at most this often per grant and process: it was a write (a
 * transaction of three round trips) for every import.
 */
export const MARK_USED_EVERY_MS = 60_000;

export function createPrismaGrantStore(
  prisma: PrismaClient,
  key: GrantKey,
  options: GrantStoreOptions = {},
): GrantStore {
  const { keyring } = options;
  const where = { shop: key.shop, customerId: key.customerId };
  const accessBinding = bindings.customerGrant(where, "accessTokenEnc");
  const refreshBinding = bindings.customerGrant(where, "refreshTokenEnc");
  let markedAt = -Infinity;

  async function load(): Promise<StoredGrant | null> {
    const [row] = await rawQuery<GrantRow>(
      prisma,
      Prisma.sql`SELECT "accessTokenEnc", "accessTokenExpiresAt" AT TIME ZONE 'UTC' AS "accessTokenExpiresAt", "refreshTokenEnc", scopes,
          "workspaceId", status, "statusReason", "tokenVersion", "boundOrigins"
        FROM "CustomerGrant" WHERE shop = ${key.shop} AND "customerId" = ${key.customerId}`,
    );
    if (!row) return null;
    const grant = {
      accessTokenExpiresAt: row.accessTokenExpiresAt,
      scopes: row.scopes.split(" ").filter(Boolean),
      workspaceId: row.workspaceId,
      status: row.status === "needs_reconnect" ? ("needs_reconnect" as const) : ("active" as const),
      statusReason: row.statusReason,
      tokenVersion: row.tokenVersion,
      boundOrigins: row.boundOrigins,
    };
    try {
      return {
        ...grant,
        accessToken: openFor(accessBinding, row.accessTokenEnc, keyring),
        refreshToken: openOptional(refreshBinding, row.refreshTokenEnc, keyring),
      };
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      // Tokens that do not open here (moved from another row, tampered with, or their key was removed) are never
      // used: the grant needs a reconnect, and the merchant sees why on the Customers page.
      await markNeedsReconnect(UNREADABLE_REASON, row.tokenVersion);
      return {
        ...grant,
        accessToken: "",
        refreshToken: null,
        status: "needs_reconnect",
        statusReason: UNREADABLE_REASON,
      };
    }
  }

  async function markNeedsReconnect(reason: string, expectedVersion: number): Promise<boolean> {
    const result = await prisma.customerGrant.updateMany({
      where: { ...where, tokenVersion: expectedVersion },
      data: { status: "needs_reconnect", statusReason: cleanReason(reason) },
    });
    return result.count === 1;
  }

  const store: GrantStore = {
    load,

    async saveRefreshed(expectedVersion: number, tokens: GrantTokens): Promise<StoredGrant | null> {
      const result = await prisma.customerGrant.updateMany({
        where: { ...where, tokenVersion: expectedVersion },
        data: {
          accessTokenEnc: sealFor(accessBinding, tokens.accessToken, keyring),
          accessTokenExpiresAt: tokens.accessTokenExpiresAt,
          refreshTokenEnc: sealOptional(refreshBinding, tokens.refreshToken, keyring),
          scopes: tokens.scopes.join(" "),
          status: "active",
          statusReason: null,
          tokenVersion: { increment: 1 },
        },
      });
      return result.count === 1 ? load() : null;
    },

    markNeedsReconnect,

    async markUsed(at: Date): Promise<void> {
      if (Math.abs(at.getTime() - markedAt) < MARK_USED_EVERY_MS) return;
      markedAt = at.getTime();
      try {
        await rawQuery(
          prisma,
          Prisma.sql`UPDATE "CustomerGrant" SET "lastUsedAt" = ${ts(at)}, "updatedAt" = ${ts(new Date())}
            WHERE shop = ${key.shop} AND "customerId" = ${key.customerId}`,
        );
      } catch {
        // Bookkeeping only: an import that succeeded must not fail because of it.
      }
    },
  };
  if (options.advisoryLock) {
    const lockKey = `customer-grant:${key.shop}:${key.customerId}`;
    store.withRefreshLock = <T>(fn: () => Promise<T>): Promise<T> =>
      // The lock lives as long as this transaction; fn's own queries use other pool connections (not blocked).
      prisma.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))) AS l`;
          return fn();
        },
        { maxWait: 30_000, timeout: 60_000 },
      );
  }
  return store;
}

// The client makes refreshes single-flight per GrantStore object. A refresh token is single-use (reusing one makes
// the service revoke the whole authorization), so every caller in this process should share one store per grant.
const shared = new Map<string, { prisma: PrismaClient; keyring?: Keyring; lock: boolean; store: GrantStore }>();
const SHARED_MAX = 2000;

/** The process-wide GrantStore for one (shop, customer): use this from the sync engine. */
export function grantStoreFor(prisma: PrismaClient, key: GrantKey, options: GrantStoreOptions = {}): GrantStore {
  const id = `${key.shop}\n${key.customerId}`;
  const lock = Boolean(options.advisoryLock);
  const hit = shared.get(id);
  if (hit && hit.prisma === prisma && hit.keyring === options.keyring && hit.lock === lock) {
    shared.delete(id); // keep the Map in recency order
    shared.set(id, hit);
    return hit.store;
  }
  const store = createPrismaGrantStore(prisma, key, options);
  shared.set(id, { prisma, keyring: options.keyring, lock, store });
  if (shared.size > SHARED_MAX) shared.delete(shared.keys().next().value!);
  return store;
}
