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
import { loadServiceSettings } from "./settings.server";
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

// A flow started on the customer account pages returns there: returnTo is then that page's absolute URL, checked to
// be inside the store's account pages as Shopify's Admin API names them (app/connections/customer-account.server.ts).
// The Connect workspace page (a full-page extension) reads the result, or the state and proof to complete with, from
// its own URL.
const accountPage = (returnTo: string | null) => (returnTo && /^https?:\/\//.test(returnTo) ? new URL(returnTo) : null);
export const ACCOUNT_PARAMS = {
  result: "workspace_result",
  state: "workspace_state",
  proof: "workspace_proof",
} as const;

export function storefrontUrl(shop: string, returnTo: string | null, result: ConnectResultCode): string {
  const account = accountPage(returnTo);
  if (account) {
    account.searchParams.set(ACCOUNT_PARAMS.result, result);
    return account.toString();
  }
  const url = new URL(`https://${shop}`);
  url.pathname = connectPath(returnTo);
  url.searchParams.set("result", result);
  return url.toString();
}

export function completionUrl(shop: string, returnTo: string | null, state: string, proof: string): string {
  const account = accountPage(returnTo);
  if (account) {
    account.searchParams.set(ACCOUNT_PARAMS.state, state);
    account.searchParams.set(ACCOUNT_PARAMS.proof, proof);
    return account.toString();
  }
  const url = new URL(`https://${shop}`);
  url.pathname = `${connectPath(returnTo)}${COMPLETE_SUFFIX}`;
  url.searchParams.set("state", state);
  url.searchParams.set("proof", proof);
  return url.toString();
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
