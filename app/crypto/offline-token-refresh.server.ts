// One refresher per shop for expiring offline tokens. Shopify replaces the refresh token each time it is used: two
// processes (web and worker, or two workers) refreshing the same shop at once would each spend the stored refresh
// token, and the one that stores last may keep a pair Shopify already superseded. So a refresh runs under a per-shop
// lock (in this process a shared promise; across processes a PostgreSQL advisory lock held by the transaction that
// stores the result; PGlite is one process), re-reads the stored session under the lock (another process may have
// refreshed it meanwhile: then that pair is used), and stores the new access and refresh tokens in one write.
import { Session } from "@shopify/shopify-api";
import type { PrismaClient } from "@prisma/client";
import { bindings, isEncrypted, openFor, sealFor, type Keyring } from "./secret-box.server";

/** Shopify's library refreshes within 5 minutes of expiry; refreshing here first leaves it nothing to do. */
export const REFRESH_WITHIN_MS = 5 * 60_000;

export type RefreshFn = (shop: string, refreshToken: string) => Promise<Session>;

export interface OfflineTokenRefresherOptions {
  prisma: () => PrismaClient;
  /** Whether other processes may share the database (PostgreSQL): then the advisory lock is taken. */
  sharedDatabase: () => boolean;
  /** Shopify's token endpoint, through its library. */
  refresh: RefreshFn;
  keyring: () => Keyring;
}

export type OfflineTokenRefresher = (session: Session) => Promise<Session>;

export const needsRefresh = (session: Session) =>
  !session.isOnline && Boolean(session.refreshToken) && session.isExpired(REFRESH_WITHIN_MS);

export function createOfflineTokenRefresher(options: OfflineTokenRefresherOptions): OfflineTokenRefresher {
  const running = new Map<string, Promise<Session>>();

  type Row = { id: string; shop: string };
  type Column = "accessToken" | "refreshToken";
  const open = (row: Row, column: Column, value: string | null) =>
    value && isEncrypted(value) ? openFor(bindings.session(row, column), value, options.keyring()) : value;
  const seal = (row: Row, column: Column, value: string) =>
    sealFor(bindings.session(row, column), value, options.keyring());

  async function refreshLocked(session: Session): Promise<Session> {
    const prisma = options.prisma();
    // PGlite is this process alone (the promise below is the lock), and a transaction there would hold every other
    // query while Shopify answers: no transaction then.
    if (!options.sharedDatabase()) return refreshIn(prisma, session);
    return prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`offline-token:${session.shop}`}, 0))`;
        return refreshIn(tx, session);
      },
      { timeout: 30_000, maxWait: 30_000 },
    );
  }

  async function refreshIn(tx: Pick<PrismaClient, "session">, session: Session): Promise<Session> {
    const row = await tx.session.findUnique({ where: { id: session.id } });
    if (!row) return session;
    const stored = new Session({
      id: row.id,
      shop: row.shop,
      state: row.state,
      isOnline: row.isOnline,
      scope: row.scope ?? undefined,
      expires: row.expires ?? undefined,
      accessToken: open(row, "accessToken", row.accessToken) ?? undefined,
      refreshToken: open(row, "refreshToken", row.refreshToken) ?? undefined,
      refreshTokenExpires: row.refreshTokenExpires ?? undefined,
    });
    // Someone refreshed it while this waited for the lock: their pair is the current one.
    if (!needsRefresh(stored)) return stored;
    const fresh = await options.refresh(session.shop, stored.refreshToken!);
    if (!fresh.accessToken) throw new Error("Shopify's token refresh returned no access token");
    // The new pair, and when each expires, in one write.
    await tx.session.update({
      where: { id: row.id },
      data: {
        accessToken: seal(row, "accessToken", fresh.accessToken),
        expires: fresh.expires ?? null,
        refreshToken: fresh.refreshToken ? seal(row, "refreshToken", fresh.refreshToken) : null,
        refreshTokenExpires: fresh.refreshTokenExpires ?? null,
        scope: fresh.scope ?? row.scope,
      },
    });
    return new Session({
      ...stored.toObject(),
      ...fresh.toObject(),
      id: row.id,
      shop: row.shop,
      isOnline: false,
    });
  }

  return (session) => {
    const current = running.get(session.shop);
    if (current) return current;
    const refreshing = refreshLocked(session).finally(() => running.delete(session.shop));
    running.set(session.shop, refreshing);
    return refreshing;
  };
}
