// Revocation without gaps: every service token the app lets go of is ended at the service (RFC 7009), best effort
// and never in the way of a merchant or shopper. A token that cannot be revoked at once goes to the
// TokenRevocation outbox, which the worker drains with backoff (drainRevocations, from housekeeping.server.ts).
//
// A row is one sealed value (the service settings without the signing secret, and the token) with no shop or
// customer in clear: the revocation must still happen after the shop's settings are gone (shop/redact), and the
// row must not keep anything of the shop. Rows are given up after MAX_ATTEMPTS or MAX_AGE_MS: a service token expires on its own.
import type { PrismaClient } from "@prisma/client";
import {
  revokeToken,
  tokensMayGoTo,
  type OAuthResult,
  type ServiceDepsOverrides,
  type ServiceSettings,
  type TokenSet,
} from "../service/client.server";
import { randomUUID } from "node:crypto";
import { bindings, openFor, openOptional, sealFor, type Keyring } from "../crypto/secret-box.server";
import type { Db } from "../db/sql.server";
import { loadServiceSettingsOrNull } from "./settings-loader.server";
import { backoffMs } from "../lib/backoff";

export type TokenHint = "refresh_token" | "access_token";
export interface TokenToRevoke {
  token: string;
  hint: TokenHint;
}

/** The settings as they were when the token was let go of, without the signing secret (revoking never signs). */
type RevocationTarget = Omit<ServiceSettings, "signingSecret">;
interface Sealed extends TokenToRevoke {
  target: RevocationTarget;
}

export const MAX_ATTEMPTS = 12;
export const MAX_AGE_MS = 14 * 86_400_000;
const BATCH = 20;
/** A claimed row is hidden from other workers this long (a revocation takes seconds at most). */
const CLAIM_MS = 5 * 60_000;

export type Revoke = (settings: ServiceSettings, token: string, hint: TokenHint) => Promise<OAuthResult<void>>;
export const revokeAtService =
  (deps?: ServiceDepsOverrides): Revoke =>
  (settings, token, hint) =>
    revokeToken(settings, token, { tokenTypeHint: hint, deps: { timeoutMs: 10_000, ...deps } });

/** The refresh token ends the whole authorization; without one, the access token. */
export function tokenOf(tokens: Pick<TokenSet, "accessToken" | "refreshToken">): TokenToRevoke {
  return tokens.refreshToken
    ? { token: tokens.refreshToken, hint: "refresh_token" }
    : { token: tokens.accessToken, hint: "access_token" };
}

/** The token to revoke for a stored grant row, or null when its ciphertext cannot be opened any more. */
export function grantToken(
  row: { shop: string; customerId: string; accessTokenEnc: string; refreshTokenEnc: string | null },
  keyring?: Keyring,
): TokenToRevoke | null {
  try {
    return tokenOf({
      refreshToken: openOptional(bindings.customerGrant(row, "refreshTokenEnc"), row.refreshTokenEnc, keyring),
      accessToken: openFor(bindings.customerGrant(row, "accessTokenEnc"), row.accessTokenEnc, keyring),
    });
  } catch {
    return null;
  }
}

/** The token of a connection's pending token set (OAuthState.pendingTokensEnc), or null. */
export function pendingToken(
  row: { shop: string; state: string; pendingTokensEnc: string | null },
  keyring?: Keyring,
): TokenToRevoke | null {
  if (!row.pendingTokensEnc) return null;
  try {
    return tokenOf(
      JSON.parse(openFor(bindings.oauthState(row, "pendingTokensEnc"), row.pendingTokensEnc, keyring)) as TokenSet,
    );
  } catch {
    return null;
  }
}

/** Puts tokens in the outbox (inside the caller's transaction when `db` is one). Nothing to do without settings. */
export async function queueRevocations(
  db: Db,
  settings: ServiceSettings | null,
  tokens: (TokenToRevoke | null)[],
  options: { keyring?: Keyring; now?: Date } = {},
): Promise<number> {
  const real = tokens.filter((t): t is TokenToRevoke => Boolean(t));
  if (!settings || real.length === 0) return 0;
  const { signingSecret: _unused, ...target } = settings;
  const now = options.now ?? new Date();
  // The id is made here, not by the insert: the sealed value is bound to it.
  const rows = real.map((t) => {
    const id = randomUUID();
    const sealed = sealFor(
      bindings.tokenRevocation(id),
      JSON.stringify({ ...t, target } satisfies Sealed),
      options.keyring,
    );
    return { id, sealed, runAt: now, createdAt: now };
  });
  const created = await db.tokenRevocation.createMany({ data: rows });
  return created.count;
}

/**
 * Everything the app holds of a customer's connections (or, without `customerId`, of a whole shop's) let go of at
 * the service, inside the caller's transaction, before the rows that hold the tokens are deleted (customers/redact,
 * shop/redact): the tokens of their grants and pending connections go to the outbox, each only towards the server
 * that issued it (after the service's address changed they are deleted but not sent to the new one,
 * app/service/origins.server.ts). Settings that are missing or cannot be decrypted (a removed key) mean nothing can
 * be revoked; the erasing goes on. Returns how many tokens were queued.
 */
export async function queueRevocationsOf(
  tx: Db,
  where: { shop: string; customerId?: string },
  options: { keyring?: Keyring; now?: Date } = {},
): Promise<number> {
  const settings = await loadServiceSettingsOrNull(tx, where.shop, { keyring: options.keyring });
  const mayGo = (row: { boundOrigins: string | null }) =>
    settings !== null && tokensMayGoTo(row.boundOrigins, settings);
  const grants = await tx.customerGrant.findMany({ where });
  const states = await tx.oAuthState.findMany({ where: { ...where, pendingTokensEnc: { not: null } } });
  return queueRevocations(
    tx,
    settings,
    [
      ...grants.filter(mayGo).map((g) => grantToken(g, options.keyring)),
      ...states.filter(mayGo).map((s) => pendingToken(s, options.keyring)),
    ],
    options,
  );
}

/**
 * Revokes at once; on failure the token goes to the outbox for the worker. For the places that let go of a token
 * while a person waits (disconnect, a finished or discarded connection): one attempt, never an error.
 */
export async function revokeOrQueue(
  prisma: PrismaClient,
  settings: ServiceSettings,
  token: TokenToRevoke,
  options: { keyring?: Keyring; revoke?: Revoke; deps?: ServiceDepsOverrides } = {},
): Promise<OAuthResult<void>> {
  const result = await (options.revoke ?? revokeAtService(options.deps))(settings, token.token, token.hint);
  if (!result.ok) await queueRevocations(prisma, settings, [token], options).catch(() => 0);
  return result;
}

export interface DrainReport {
  revoked: number;
  retrying: number;
  gaveUp: number;
}

/** Back-off between attempts (the queue's rule, app/lib/backoff.ts): about 1 min, 2, 4 … capped at 6 h. */
const retryDelayMs = (attempts: number) => backoffMs(attempts, undefined, Math.random, 60_000, 6 * 3600_000);

/**
 * One pass over due outbox rows (at most `batch`). Each row is claimed with a compare-and-set on runAt, so workers
 * sharing the database never present the same token twice at once. A service that says the token is unknown or
 * already invalid has nothing left to end: that counts as done (RFC 7009 answers 200 for those anyway).
 */
export async function drainRevocations(
  prisma: PrismaClient,
  options: {
    now?: Date;
    keyring?: Keyring;
    revoke?: Revoke;
    batch?: number;
    log?: (event: string, facts: object) => void;
  } = {},
): Promise<DrainReport> {
  const now = options.now ?? new Date();
  const revoke = options.revoke ?? revokeAtService();
  const log = options.log ?? (() => undefined);
  const report: DrainReport = { revoked: 0, retrying: 0, gaveUp: 0 };
  const due = await prisma.tokenRevocation.findMany({
    where: { runAt: { lte: now } },
    orderBy: { runAt: "asc" },
    take: options.batch ?? BATCH,
  });
  for (const row of due) {
    const claimed = await prisma.tokenRevocation.updateMany({
      where: { id: row.id, runAt: row.runAt },
      data: { runAt: new Date(now.getTime() + CLAIM_MS), attempts: { increment: 1 } },
    });
    if (claimed.count !== 1) continue; // another worker has it
    const attempts = row.attempts + 1;
    let sealed: Sealed | null = null;
    try {
      sealed = JSON.parse(openFor(bindings.tokenRevocation(row.id), row.sealed, options.keyring)) as Sealed;
    } catch {
      sealed = null; // its key was removed from ENCRYPTION_KEYS (or it was moved here): never sent anywhere
    }
    const outcome: OAuthResult<void> = sealed
      ? await revoke({ ...sealed.target, signingSecret: "" }, sealed.token, sealed.hint)
      : { ok: false, kind: "unexpected_response", retryable: false, message: "undecryptable" };
    if (outcome.ok || outcome.kind === "invalid_grant") {
      await prisma.tokenRevocation.deleteMany({ where: { id: row.id } });
      report.revoked += 1;
      continue;
    }
    const tooOld = now.getTime() - row.createdAt.getTime() >= MAX_AGE_MS;
    if (attempts >= MAX_ATTEMPTS || tooOld || !sealed) {
      await prisma.tokenRevocation.deleteMany({ where: { id: row.id } });
      log("token_revocation_gave_up", { attempts, kind: outcome.kind });
      report.gaveUp += 1;
      continue;
    }
    await prisma.tokenRevocation.updateMany({
      where: { id: row.id },
      data: { runAt: new Date(now.getTime() + retryDelayMs(attempts)), lastError: outcome.kind },
    });
    report.retrying += 1;
  }
  return report;
}

/** Starts a drain without waiting for it (after a webhook commits its outbox rows): the worker retries the rest. */
export function kickRevocations(prisma: PrismaClient, options: { keyring?: Keyring; revoke?: Revoke } = {}): void {
  void drainRevocations(prisma, options).catch(() => undefined);
}
