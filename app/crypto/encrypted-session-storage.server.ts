// Shopify's offline access token is the most powerful secret the app holds; the session storage package keeps it
// in plain text. This wrapper encrypts accessToken and refreshToken on the way in and decrypts on the way out,
// with the same keys (and rotation) as every other secret. A value stored before the wrapper existed (plain text)
// still loads, and is encrypted the next time Shopify's library stores the session or `npm run rotate-key` runs.
// Each value is bound to its session (id and shop) and column: a token copied into another shop's session does not
// open, and such a session is treated as absent (Shopify's library then authenticates the shop again and stores a
// fresh one), never handed out.
import { Session } from "@shopify/shopify-api";
import type { SessionStorage } from "@shopify/shopify-app-session-storage";
import { needsRefresh, type OfflineTokenRefresher } from "./offline-token-refresh.server";
import { logger } from "../lib/logger.server";
import {
  bindings,
  defaultKeyring,
  isEncrypted,
  openFor,
  sealFor,
  SecretBoxError,
  type Keyring,
} from "./secret-box.server";

export class EncryptedSessionStorage implements SessionStorage {
  constructor(
    private readonly inner: SessionStorage,
    private readonly keyring: () => Keyring = defaultKeyring,
    /** Refreshes an expiring offline session once per shop (offline-token-refresh.server.ts) before it is handed out. */
    private readonly refresher?: OfflineTokenRefresher,
  ) {}

  storeSession(session: Session): Promise<boolean> {
    return this.inner.storeSession(
      this.transform(session, (v, column) =>
        isEncrypted(v) ? v : sealFor(bindings.session(session, column), v, this.keyring()),
      ),
    );
  }

  async loadSession(id: string): Promise<Session | undefined> {
    const session = await this.inner.loadSession(id);
    if (!session) return undefined;
    const plain = this.decrypt(session);
    if (!plain) return undefined;
    // Refreshed here, under the per-shop lock, so Shopify's library (which refreshes without one) finds it fresh.
    return this.refresher && needsRefresh(plain) ? this.refresher(plain) : plain;
  }

  deleteSession(id: string): Promise<boolean> {
    return this.inner.deleteSession(id);
  }

  deleteSessions(ids: string[]): Promise<boolean> {
    return this.inner.deleteSessions(ids);
  }

  async findSessionsByShop(shop: string): Promise<Session[]> {
    return (await this.inner.findSessionsByShop(shop))
      .map((session) => this.decrypt(session))
      .filter((s): s is Session => s !== undefined);
  }

  /** The session storage package polls this before first use (Prisma's table may not exist yet). */
  isReady(): Promise<boolean> {
    const inner = this.inner as { isReady?: () => Promise<boolean> };
    return inner.isReady ? inner.isReady() : Promise.resolve(true);
  }

  /** The session with its tokens in plain text, or undefined when they do not open here (logged, never used). */
  private decrypt(session: Session): Session | undefined {
    try {
      return this.transform(session, (v, column) =>
        isEncrypted(v) ? openFor(bindings.session(session, column), v, this.keyring()) : v,
      );
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      logger("crypto").warn(
        { sessionId: session.id, reason: err.message },
        "a stored Shopify session's token does not decrypt: treated as no session",
      );
      return undefined;
    }
  }

  private transform(session: Session, fn: (value: string, column: "accessToken" | "refreshToken") => string): Session {
    const params = session.toObject();
    return new Session({
      ...params,
      accessToken: params.accessToken ? fn(params.accessToken, "accessToken") : params.accessToken,
      refreshToken: params.refreshToken ? fn(params.refreshToken, "refreshToken") : params.refreshToken,
    });
  }
}
