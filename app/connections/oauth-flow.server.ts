// A shopper connecting their service workspace: OAuth 2.0 authorization code + PKCE through the client's
// oauth4webapi functions. The state row binds the attempt to one shop and one customer, holds the encrypted
// code_verifier, expires after 10 minutes and is consumed exactly once (an atomic update), so a replayed or
// late callback stores nothing. Results go back to the storefront as a short code the proxy page turns into words.
import type { PrismaClient } from "@prisma/client";
import {
  completeAuthorization,
  revokeToken,
  SERVICE_SCOPES,
  startAuthorization,
  type ServiceDepsOverrides,
  type ServiceSettings,
} from "../service";
import { storeGrant } from "./grants.server";
import { decryptSecret, encryptSecret, type Keyring } from "./secret-box.server";
import { loadServiceSettings } from "./settings.server";

export const STATE_TTL_MS = 10 * 60 * 1000;
/** Expired states are kept a day so a late callback is told "expired" rather than "not recognised". */
const STATE_RETENTION_MS = 24 * 60 * 60 * 1000;
export const CALLBACK_PATH = "/connect/callback";
export const DEFAULT_PROXY_PREFIX = "/apps/workspace";

export type ConnectResultCode =
  | "connected"
  | "denied"
  | "expired"
  | "already_used"
  | "invalid_state"
  | "failed"
  | "not_configured";

/** The words the storefront shows for each result. */
export const RESULT_MESSAGES: Record<ConnectResultCode, string> = {
  connected: "Your workspace is connected.",
  denied: "You declined the connection, so nothing was connected. You can start again at any time.",
  expired: "The connection attempt took too long and expired. Please start again.",
  already_used: "This connection link was already used. If your workspace is not shown as connected, please start again.",
  invalid_state: "The connection attempt could not be verified. Please start again from this page.",
  failed: "The workspace service could not complete the connection. Nothing was connected; please try again later.",
  not_configured: "Workspace connections are not available at this store yet.",
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

function storefrontUrl(shop: string, returnTo: string | null, result: ConnectResultCode): string {
  const url = new URL(`https://${shop}`);
  url.pathname = returnTo && returnTo.startsWith("/") && !returnTo.startsWith("//") ? returnTo : `${DEFAULT_PROXY_PREFIX}/connect`;
  url.searchParams.set("result", result);
  return url.toString();
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
  await prisma.oAuthState.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - STATE_RETENTION_MS) } } });
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
  /** Send the shopper back to the store with this result. */
  | { kind: "redirect"; location: string; result: ConnectResultCode; shop: string; customerId: string }
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

  const tokens = exchanged.value;
  const { previousRefreshToken } = await storeGrant(
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
  );
  log("customer_connected", { shop: row.shop, customerId: row.customerId, workspaceId: tokens.workspaceId, scopes: tokens.scopes });

  // A reconnect replaced an older authorization: end it at the service so no stale token stays valid there.
  if (previousRefreshToken) {
    const revoked = await revokeToken(settings, previousRefreshToken, { tokenTypeHint: "refresh_token", deps: options.deps });
    if (!revoked.ok) log("connect_old_grant_revoke_failed", { shop: row.shop, kind: revoked.kind });
  }
  if (options.onConnected) {
    try {
      await options.onConnected({ shop: row.shop, customerId: row.customerId });
    } catch (err) {
      log("on_connected_failed", { shop: row.shop, error: err instanceof Error ? err.name : "unknown" });
    }
  }
  return back("connected");
}
