// The connect flow's shared vocabulary (app/connections/oauth-start, oauth-callback, storefront-completion):
// result codes, the store's URLs it sends shoppers to, the pending token set sealed between the callback and the
// completion step, and the options the steps take.
//
// A shopper connecting their service workspace: OAuth 2.0 authorization code + PKCE through the client's
// oauth4webapi functions. The state row binds the attempt to one shop and one customer, holds the encrypted
// code_verifier, expires after 10 minutes and is consumed exactly once (an atomic update), so a replayed or
// late callback stores nothing. Results go back to the storefront as a short code the proxy page turns into words.
//
// Two steps, because the browser that approves at the service need not be the customer who started:
// 1. the callback (app domain) checks the state and exchanges the code, but keeps the token set encrypted on the
//    state row as pending and sends the browser to the store's completion step with a one-time proof;
// 2. the completion step (app proxy, so Shopify vouches for logged_in_customer_id) stores the grant only when
//    that customer is the state's customer. Anyone else: nothing stored, the tokens revoked at the service and
//    erased. Otherwise a customer could get someone else to approve their link and have that person's workspace
//    receive their orders.
import { timingSafeEqual } from "node:crypto";
import { sha256 } from "../lib/hash";
import type { PrismaClient } from "@prisma/client";
import type { ServiceDepsOverrides, ServiceSettings, TokenSet } from "../service/client.server";
import { bindings, openFor, sealFor, type Keyring } from "../crypto/secret-box.server";
import { loadServiceSettings } from "./settings-loader.server";
import { DEFAULT_PROXY_PREFIX } from "../shopify/app-proxy.server";

export const STATE_TTL_MS = 10 * 60 * 1000;
/** Expired states are kept a day so a late callback is told "expired" rather than "not recognised". */
export const STATE_RETENTION_MS = 24 * 60 * 60 * 1000;
const CALLBACK_PATH = "/connect/callback";
/** The storefront completion step, under the connect page's path (…/connect/complete). */
export const COMPLETE_SUFFIX = "/complete";

export type ConnectResultCode =
  | "connected"
  | "denied"
  | "expired"
  | "already_used"
  | "invalid_state"
  | "failed"
  | "not_configured"
  | "wrong_customer";

export function callbackUrl(appUrl: string): string {
  return `${appUrl.replace(/\/+$/, "")}${CALLBACK_PATH}`;
}

const connectPath = (returnTo: string | null) =>
  returnTo && returnTo.startsWith("/") && !returnTo.startsWith("//") ? returnTo : `${DEFAULT_PROXY_PREFIX}/connect`;

// A flow started on the customer account pages returns there: returnTo is then an absolute URL the app built from the
// store's account root as Shopify's Admin API gives it (customerAccountsV2.url; app/connections/account-root.server.ts),
// never one a page sent. Nothing is put in it: the account pages ask the backend how the attempt ended (recordResult).
const accountPage = (returnTo: string | null) => (returnTo && /^https?:\/\//.test(returnTo) ? new URL(returnTo) : null);

/** Where a shopper goes with `result`: the account page the attempt came from, or the store's Connect page. */
export function storefrontUrl(shop: string, returnTo: string | null, result: ConnectResultCode): string {
  const account = accountPage(returnTo);
  if (account) return account.toString();
  const url = new URL(`https://${shop}`);
  url.pathname = connectPath(returnTo);
  url.searchParams.set("result", result);
  return url.toString();
}

/**
 * The store's completion step (app proxy, where Shopify signs logged_in_customer_id) for every attempt, wherever it
 * started: the only place outside the account pages where Shopify vouches for who is signed in. An attempt from the
 * account pages uses the app's default proxy path (the session token does not carry the store's proxy path).
 */
export function completionUrl(shop: string, returnTo: string | null, state: string, proof: string): string {
  const url = new URL(`https://${shop}`);
  url.pathname = `${connectPath(returnTo)}${COMPLETE_SUFFIX}`;
  url.searchParams.set("state", state);
  url.searchParams.set("proof", proof);
  return url.toString();
}

/** Whether the attempt came from the customer account pages (its shopper goes back there). */
export const fromAccountPages = (returnTo: string | null) => accountPage(returnTo) !== null;

/**
 * How the attempt ended, kept on its row for the account pages to ask (the first outcome stands: a replay or a late
 * second request does not overwrite it).
 */
export async function recordResult(prisma: PrismaClient, state: string, result: ConnectResultCode, now: Date) {
  await prisma.oAuthState.updateMany({ where: { state, result: null }, data: { result, finishedAt: now } });
}

export const proofHash = (value: string) => sha256(value, "base64url");
export const sameHash = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The state row a sealed value belongs to. */
type StateKey = { shop: string; state: string };

/** The token set as kept pending (encrypted) between the callback and the completion step. */
export function sealTokens(row: StateKey, tokens: TokenSet, keyring: Keyring | undefined): string {
  const json = JSON.stringify({ ...tokens, accessTokenExpiresAt: tokens.accessTokenExpiresAt?.toISOString() ?? null });
  return sealFor(bindings.oauthState(row, "pendingTokensEnc"), json, keyring);
}

export function openTokens(row: StateKey, sealed: string, keyring: Keyring | undefined): TokenSet {
  const raw = JSON.parse(openFor(bindings.oauthState(row, "pendingTokensEnc"), sealed, keyring)) as Omit<
    TokenSet,
    "accessTokenExpiresAt"
  > & { accessTokenExpiresAt: string | null };
  return { ...raw, accessTokenExpiresAt: raw.accessTokenExpiresAt ? new Date(raw.accessTokenExpiresAt) : null };
}

export interface ConnectStepOptions {
  now?: Date;
  keyring?: Keyring;
  /** Service client overrides (fetch, timeouts) for tests. */
  deps?: ServiceDepsOverrides;
  /** The sync engine's hook; awaited but never allowed to fail the connection. */
  onConnected?: (event: { shop: string; customerId: string }) => Promise<unknown>;
  /** Called with non-secret facts when something worth a log line happens. */
  log?: (event: string, facts: Record<string, unknown>) => void;
}

export const STATE_FORMAT = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The shop's settings (null: not configured) and one secret of the state row, decrypted; null when either cannot
 * be decrypted (a rotated-away key): the step answers "failed" and logs it, never the secret.
 */
export async function settingsAndSecret<T>(
  prisma: PrismaClient,
  shop: string,
  keyring: Keyring | undefined,
  open: () => T,
): Promise<{ settings: ServiceSettings | null; secret: T } | null> {
  try {
    return { settings: await loadServiceSettings(prisma, shop, keyring), secret: open() };
  } catch {
    return null;
  }
}
