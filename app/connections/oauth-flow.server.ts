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
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import {
  completeAuthorization,
  SERVICE_SCOPES,
  startAuthorization,
  type ServiceDepsOverrides,
  type ServiceSettings,
  type TokenSet,
} from "../service/client.server";
import { storeGrant } from "./grant-lifecycle.server";
import { decryptSecret, encryptSecret, type Keyring } from "../crypto/secret-box.server";
import { loadServiceSettings } from "./settings.server";
import { queueRevocations, revokeOrQueue, tokenOf } from "../privacy/revocations.server";

export const STATE_TTL_MS = 10 * 60 * 1000;
/** Expired states are kept a day so a late callback is told "expired" rather than "not recognised". */
const STATE_RETENTION_MS = 24 * 60 * 60 * 1000;
export const CALLBACK_PATH = "/connect/callback";
/** The storefront completion step, under the connect page's path (…/connect/complete). */
export const COMPLETE_SUFFIX = "/complete";
export const DEFAULT_PROXY_PREFIX = "/apps/workspace";

export type ConnectResultCode =
  | "connected"
  | "denied"
  | "expired"
  | "already_used"
  | "invalid_state"
  | "failed"
  | "not_configured"
  | "wrong_customer";

/** The words the storefront shows for each result. */
export const RESULT_MESSAGES: Record<ConnectResultCode, string> = {
  connected: "Your workspace is connected.",
  denied: "You declined the connection, so nothing was connected. You can start again at any time.",
  expired: "The connection attempt took too long and expired. Please start again.",
  already_used: "This connection link was already used. If your workspace is not shown as connected, please start again.",
  invalid_state: "The connection attempt could not be verified. Please start again from this page.",
  failed: "The workspace service could not complete the connection. Nothing was connected; please try again later.",
  not_configured: "Workspace connections are not available at this store yet.",
  wrong_customer:
    "This connection was started from a different customer account, so nothing was connected and the access approved at the workspace service was withdrawn. To connect your own workspace, start again from this page.",
};

export function isResultCode(value: string | null): value is ConnectResultCode {
  return value !== null && Object.hasOwn(RESULT_MESSAGES, value);
}

/** Shopify's path_prefix for the proxy (merchants may change the subpath); anything odd falls back to ours. */
export function proxyPrefix(value: string | null | undefined): string {
  return value && /^\/(apps|a|community|tools)\/[A-Za-z0-9_-]{1,64}$/.test(value) ? value : DEFAULT_PROXY_PREFIX;
}

export function callbackUrl(appUrl: string): string {
  return `${appUrl.replace(/\/+$/, "")}${CALLBACK_PATH}`;
}

const connectPath = (returnTo: string | null) =>
  returnTo && returnTo.startsWith("/") && !returnTo.startsWith("//") ? returnTo : `${DEFAULT_PROXY_PREFIX}/connect`;

function storefrontUrl(shop: string, returnTo: string | null, result: ConnectResultCode): string {
  const url = new URL(`https://${shop}`);
  url.pathname = connectPath(returnTo);
  url.searchParams.set("result", result);
  return url.toString();
}

function completionUrl(shop: string, returnTo: string | null, state: string, proof: string): string {
  const url = new URL(`https://${shop}`);
  url.pathname = `${connectPath(returnTo)}${COMPLETE_SUFFIX}`;
  url.searchParams.set("state", state);
  url.searchParams.set("proof", proof);
  return url.toString();
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");
const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The token set as kept pending (encrypted) between the callback and the completion step. */
function sealTokens(tokens: TokenSet, keyring: Keyring | undefined): string {
  return encryptSecret(JSON.stringify({ ...tokens, accessTokenExpiresAt: tokens.accessTokenExpiresAt?.toISOString() ?? null }), keyring);
}

function openTokens(sealed: string, keyring: Keyring | undefined): TokenSet {
  const raw = JSON.parse(decryptSecret(sealed, keyring)) as Omit<TokenSet, "accessTokenExpiresAt"> & { accessTokenExpiresAt: string | null };
  return { ...raw, accessTokenExpiresAt: raw.accessTokenExpiresAt ? new Date(raw.accessTokenExpiresAt) : null };
}

// Display-only values the storefront's Liquid filled in: one line, bounded.
const cleanLabel = (value: string | null | undefined, max: number) => {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const s = (value ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").trim().slice(0, max);
  return s && !s.includes("{{") ? s : null; // "{{" = Liquid that was never rendered: no name known
};

export interface StartInput {
  shop: string;
  customerId: string;
  customerName?: string | null;
  customerEmail?: string | null;
  /** The storefront path to come back to, e.g. "/apps/workspace/connect". */
  returnTo?: string;
}

export type StartResult = { ok: true; authorizationUrl: string } | { ok: false; code: "not_configured"; message: string };

export async function startConnect(
  prisma: PrismaClient,
  input: StartInput,
  options: { appUrl: string; now?: Date; keyring?: Keyring; settings?: ServiceSettings | null },
): Promise<StartResult> {
  const now = options.now ?? new Date();
  let settings: ServiceSettings | null;
  try {
    settings = options.settings !== undefined ? options.settings : await loadServiceSettings(prisma, input.shop, options.keyring);
  } catch {
    settings = null; // undecryptable settings: the merchant sees it on the settings page; the shopper gets plain words
  }
  if (!settings) return { ok: false, code: "not_configured", message: RESULT_MESSAGES.not_configured };

  const redirectUri = callbackUrl(options.appUrl);
  const start = await startAuthorization(settings, { redirectUri, scopes: SERVICE_SCOPES });
  // Rows still holding exchanged tokens are left to the worker, which revokes them first (privacy/housekeeping).
  await prisma.oAuthState.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - STATE_RETENTION_MS) }, pendingTokensEnc: null } });
  await prisma.oAuthState.create({
    data: {
      state: start.state,
      shop: input.shop,
      customerId: input.customerId,
      customerName: cleanLabel(input.customerName, 200),
      customerEmail: cleanLabel(input.customerEmail, 320),
      codeVerifierEnc: encryptSecret(start.codeVerifier, options.keyring),
      redirectUri,
      returnTo: input.returnTo ?? `${DEFAULT_PROXY_PREFIX}/connect`,
      createdAt: now,
      expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    },
  });
  return { ok: true, authorizationUrl: start.url.toString() };
}

export type CallbackResult =
  /** Send the shopper back to the store with this result ("pending": to the completion step). */
  | { kind: "redirect"; location: string; result: ConnectResultCode | "pending"; shop: string; customerId: string }
  /** Nothing ties the request to a store (unknown or missing state): answer on the app's own domain. */
  | { kind: "error"; status: 400; result: "invalid_state"; message: string };

export interface CompleteOptions {
  now?: Date;
  keyring?: Keyring;
  /** Service client overrides (fetch, timeouts) for tests. */
  deps?: ServiceDepsOverrides;
  /** The sync engine's hook; awaited but never allowed to fail the connection. */
  onConnected?: (event: { shop: string; customerId: string }) => Promise<unknown>;
  /** Called with non-secret facts when something worth a log line happens. */
  log?: (event: string, facts: Record<string, unknown>) => void;
}

const STATE_FORMAT = /^[A-Za-z0-9_-]{16,128}$/;

/** Handles GET /connect/callback?code=…&state=… (or ?error=…&state=…). */
export async function completeConnect(
  prisma: PrismaClient,
  requestUrl: string | URL,
  options: CompleteOptions = {},
): Promise<CallbackResult> {
  const now = options.now ?? new Date();
  const log = options.log ?? (() => undefined);
  const url = new URL(requestUrl);
  const state = url.searchParams.get("state");
  const invalid: CallbackResult = {
    kind: "error",
    status: 400,
    result: "invalid_state",
    message: "This connection link is not valid. Go back to the store and start the connection again.",
  };
  if (!state || !STATE_FORMAT.test(state) || url.searchParams.getAll("state").length !== 1) return invalid;

  const row = await prisma.oAuthState.findUnique({ where: { state } });
  if (!row) {
    log("connect_callback_unknown_state", {});
    return invalid;
  }
  const back = (result: ConnectResultCode): CallbackResult => ({
    kind: "redirect",
    location: storefrontUrl(row.shop, row.returnTo, result),
    result,
    shop: row.shop,
    customerId: row.customerId,
  });

  // Consume the state before anything else: of two concurrent callbacks, exactly one gets past this line.
  const claimed = await prisma.oAuthState.updateMany({
    where: { state, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (claimed.count !== 1) {
    // Read again: a concurrent callback may have used it after our first read.
    const current = await prisma.oAuthState.findUnique({ where: { state }, select: { usedAt: true } });
    const result = current?.usedAt ? "already_used" : "expired";
    log("connect_callback_rejected", { shop: row.shop, result });
    return back(result);
  }

  let settings: ServiceSettings | null = null;
  let codeVerifier: string;
  try {
    settings = await loadServiceSettings(prisma, row.shop, options.keyring);
    codeVerifier = decryptSecret(row.codeVerifierEnc, options.keyring);
  } catch {
    log("connect_callback_decrypt_failed", { shop: row.shop });
    return back("failed");
  }
  if (!settings) return back("not_configured");

  const exchanged = await completeAuthorization(settings, {
    callbackUrl: url,
    expectedState: state,
    codeVerifier,
    redirectUri: row.redirectUri,
    requestedScopes: SERVICE_SCOPES,
    deps: options.deps,
  });
  if (!exchanged.ok) {
    const result: ConnectResultCode =
      exchanged.kind === "access_denied" ? "denied" : exchanged.kind === "invalid_state" ? "invalid_state" : "failed";
    log("connect_callback_failed", { shop: row.shop, kind: exchanged.kind, errorCode: exchanged.errorCode, status: exchanged.status });
    return back(result);
  }

  // Not stored yet: only the store's completion step knows who is logged in there. The proof makes the step
  // reachable only from the browser that came through here (the state alone is in the authorization URL, which
  // whoever started the flow has seen).
  const proof = randomBytes(32).toString("base64url");
  await prisma.oAuthState.update({
    where: { state },
    data: { pendingTokensEnc: sealTokens(exchanged.value, options.keyring), proofHash: sha256(proof), exchangedAt: now },
  });
  log("connect_callback_exchanged", { shop: row.shop, customerId: row.customerId, workspaceId: exchanged.value.workspaceId });
  return {
    kind: "redirect",
    location: completionUrl(row.shop, row.returnTo, state, proof),
    result: "pending",
    shop: row.shop,
    customerId: row.customerId,
  };
}

export interface FinishInput {
  /** From the verified app proxy request. */
  shop: string;
  /** Shopify's logged_in_customer_id, from the verified request; null or empty when nobody is logged in. */
  customerId: string | null;
  /** The proxied request's URL (state and proof in its query). */
  url: string | URL;
  /** The proxy's path prefix (checked with proxyPrefix), e.g. "/apps/workspace". */
  prefix: string;
}

export type FinishResult =
  /** Send the shopper to the store's connect page with this result. */
  | { kind: "redirect"; location: string; result: ConnectResultCode }
  /** Nobody is logged in: to the store's login, which comes back to the same step. */
  | { kind: "login"; location: string };

const PROOF_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/**
 * The storefront completion step (GET {prefix}/connect/complete?state=…&proof=… through the app proxy): stores
 * the pending grant when the logged-in customer is the one who started; otherwise stores nothing and revokes.
 */
export async function finishConnect(prisma: PrismaClient, input: FinishInput, options: CompleteOptions = {}): Promise<FinishResult> {
  const now = options.now ?? new Date();
  const log = options.log ?? (() => undefined);
  const url = new URL(input.url);
  const state = url.searchParams.get("state");
  const proof = url.searchParams.get("proof");
  const to = (result: ConnectResultCode, returnTo: string | null = `${input.prefix}/connect`): FinishResult => ({
    kind: "redirect",
    location: storefrontUrl(input.shop, returnTo, result),
    result,
  });
  if (!state || !STATE_FORMAT.test(state) || url.searchParams.getAll("state").length !== 1) return to("invalid_state");
  if (!input.customerId) {
    // Back to this very step after logging in (Shopify takes a path on the store as return_url).
    const back = new URLSearchParams({ state, proof: proof ?? "" });
    return { kind: "login", location: `/account/login?return_url=${encodeURIComponent(`${input.prefix}/connect${COMPLETE_SUFFIX}?${back}`)}` };
  }

  const row = await prisma.oAuthState.findUnique({ where: { state } });
  const proofOk = Boolean(row?.proofHash && proof && PROOF_FORMAT.test(proof) && sameHash(sha256(proof), row.proofHash));
  // Another shop's state, or no proof from the callback: not this step's to finish (and nothing is used up).
  if (!row || row.shop !== input.shop || !proofOk) {
    log("connect_complete_unrecognised", { shop: input.shop });
    return to("invalid_state");
  }
  if (!row.pendingTokensEnc) return to("already_used", row.returnTo);

  // Take the pending tokens: of concurrent completions exactly one gets them; they are off the row from here on.
  const taken = await prisma.oAuthState.updateMany({
    where: { state, pendingTokensEnc: row.pendingTokensEnc },
    data: { pendingTokensEnc: null },
  });
  if (taken.count !== 1) return to("already_used", row.returnTo);

  let settings: ServiceSettings | null = null;
  let tokens: TokenSet;
  try {
    settings = await loadServiceSettings(prisma, row.shop, options.keyring);
    tokens = openTokens(row.pendingTokensEnc, options.keyring);
  } catch {
    log("connect_complete_decrypt_failed", { shop: row.shop });
    return to("failed", row.returnTo);
  }

  const discard = async (result: ConnectResultCode): Promise<FinishResult> => {
    // Best effort: revoking the refresh token ends the whole authorization at the service; the worker retries.
    if (settings) {
      const revoked = await revokeOrQueue(prisma, settings, tokenOf(tokens), { keyring: options.keyring, deps: options.deps });
      if (!revoked.ok) log("connect_pending_revoke_failed", { shop: row.shop, kind: revoked.kind });
    } else {
      log("connect_pending_revoke_skipped", { shop: row.shop, reason: "not_configured" });
    }
    return to(result, row.returnTo);
  };

  if (row.expiresAt.getTime() <= now.getTime()) {
    log("connect_complete_expired", { shop: row.shop, customerId: row.customerId });
    return discard("expired");
  }
  if (row.customerId !== input.customerId) {
    log("connect_complete_wrong_customer", { shop: row.shop, customerId: row.customerId, completedBy: input.customerId });
    return discard("wrong_customer");
  }
  if (!settings) return to("not_configured", row.returnTo);

  let previousRefreshToken: string | null;
  try {
    ({ previousRefreshToken } = await storeGrant(
      prisma,
      {
        shop: row.shop,
        customerId: row.customerId,
        customerName: row.customerName,
        customerEmail: row.customerEmail,
        // The contract always names the workspace; a service that does not still gets a stable label.
        workspaceId: tokens.workspaceId ?? "unknown",
        tokens,
      },
      { now, keyring: options.keyring },
    ));
  } catch {
    // Not stored: the tokens are off the state row already, so nothing here holds them but the outbox.
    log("connect_store_failed", { shop: row.shop, customerId: row.customerId });
    await queueRevocations(prisma, settings, [tokenOf(tokens)], { keyring: options.keyring, now }).catch(() => 0);
    return to("failed", row.returnTo);
  }
  log("customer_connected", { shop: row.shop, customerId: row.customerId, workspaceId: tokens.workspaceId, scopes: tokens.scopes });

  // A reconnect replaced an older authorization: end it at the service so no stale token stays valid there.
  if (previousRefreshToken) {
    const old = { token: previousRefreshToken, hint: "refresh_token" } as const;
    const revoked = await revokeOrQueue(prisma, settings, old, { keyring: options.keyring, deps: options.deps });
    if (!revoked.ok) log("connect_old_grant_revoke_failed", { shop: row.shop, kind: revoked.kind });
  }
  if (options.onConnected) {
    try {
      await options.onConnected({ shop: row.shop, customerId: row.customerId });
    } catch (err) {
      log("on_connected_failed", { shop: row.shop, error: err instanceof Error ? err.name : "unknown" });
    }
  }
  return to("connected", row.returnTo);
}
