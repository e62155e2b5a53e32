// OAuth 2.0 authorization code + PKCE against {auth_url}, through oauth4webapi (no hand-written protocol code):
// authorization URL (S256 + state), callback validation, code exchange, refresh and revocation.
// Client authentication is client_secret_basic unless the settings say client_secret_post.
import * as oauth from "oauth4webapi";
import { isLoopbackHost } from "../loopback";
import { networkCause } from "./http.server";
import {
  hostOf,
  toContext,
  type ServiceContext,
  type ServiceDepsOverrides,
  type ServiceSettings,
} from "./context.server";

export const SERVICE_SCOPES = ["orders:write", "shipments:write"] as const;

export interface TokenSet {
  accessToken: string;
  /** Null when the server issued none. On refresh without a new one, the old one is carried over by the caller. */
  refreshToken: string | null;
  /** Null when `expires_in` was absent: valid until the service answers 401. */
  accessTokenExpiresAt: Date | null;
  scopes: string[];
  /** The workspace the customer picked (the service's `workspace_id`), when the server says. */
  workspaceId: string | null;
}

export type OAuthFailureKind =
  | "access_denied"
  | "invalid_state"
  | "invalid_callback"
  | "invalid_grant"
  | "invalid_client"
  | "invalid_scope"
  | "server_error"
  | "network_error"
  | "timeout"
  | "unexpected_response";

export interface OAuthFailure {
  ok: false;
  kind: OAuthFailureKind;
  retryable: boolean;
  message: string;
  /** The server's `error` code, when there was one. */
  errorCode?: string;
  status?: number;
}

export type OAuthResult<T> = { ok: true; value: T } | OAuthFailure;

interface OAuthParts {
  ctx: ServiceContext;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  host: string;
}

function parts(target: ServiceSettings | ServiceContext, overrides?: ServiceDepsOverrides): OAuthParts {
  const ctx = toContext(target, overrides);
  const { settings } = ctx;
  const base = settings.authUrl.replace(/\/+$/, "");
  return {
    ctx,
    // The endpoints are fixed (docs/service.md, "OAuth 2.0 with PKCE"), so no discovery round trip is needed.
    as: {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
    },
    client: { client_id: settings.clientId },
    clientAuth:
      settings.clientAuthMethod === "client_secret_post"
        ? oauth.ClientSecretPost(settings.clientSecret)
        : oauth.ClientSecretBasic(settings.clientSecret),
    host: hostOf(base),
  };
}

function requestOptions(p: OAuthParts) {
  return {
    [oauth.customFetch]: p.ctx.deps.fetch as (url: string, init: RequestInit) => Promise<Response>,
    // Plain http only for a loopback auth server (the local emulator, tests); anything else needs https.
    [oauth.allowInsecureRequests]: isLoopbackHost(new URL(p.as.issuer).hostname),
    signal: AbortSignal.timeout(p.ctx.deps.timeoutMs),
  };
}

const MESSAGES: Record<OAuthFailureKind, (host: string) => string> = {
  access_denied: () => "The customer declined the connection.",
  invalid_state: () => "The connection attempt could not be verified (it expired or came from elsewhere). Start again.",
  invalid_callback: () => "The authorization server sent back an answer that could not be used. Start again.",
  invalid_grant: () => "The authorization is no longer valid (expired, used or revoked). The customer must reconnect.",
  invalid_client: () => "The authorization server rejected the app's client ID or client secret: check the settings.",
  invalid_scope: () => "The requested permissions were refused by the authorization server.",
  server_error: (h) => `${h} had an internal problem. Trying again later usually helps.`,
  network_error: (h) => `Could not reach ${h}.`,
  timeout: (h) => `${h} did not answer in time.`,
  unexpected_response: (h) => `${h} gave an answer the app does not understand.`,
};

const RETRYABLE = new Set<OAuthFailureKind>(["server_error", "network_error", "timeout"]);

function oauthFailure(kind: OAuthFailureKind, host: string, extra: { errorCode?: string; status?: number } = {}) {
  const out: OAuthFailure = { ok: false, kind, retryable: RETRYABLE.has(kind), message: MESSAGES[kind](host) };
  if (extra.errorCode !== undefined) out.errorCode = extra.errorCode;
  if (extra.status !== undefined) out.status = extra.status;
  return out;
}

/** Maps whatever oauth4webapi or fetch threw to a typed failure. Never includes token material. */
function fromError(err: unknown, host: string): OAuthFailure {
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) {
    const status = err instanceof oauth.ResponseBodyError ? err.status : undefined;
    const known: Record<string, OAuthFailureKind> = {
      access_denied: "access_denied",
      invalid_grant: "invalid_grant",
      invalid_client: "invalid_client",
      unauthorized_client: "invalid_client",
      invalid_scope: "invalid_scope",
      server_error: "server_error",
      temporarily_unavailable: "server_error",
    };
    const kind = known[err.error] ?? (status !== undefined && status >= 500 ? "server_error" : "invalid_callback");
    return oauthFailure(kind, host, { errorCode: err.error, status });
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    // The token endpoint's 401 comes with `WWW-Authenticate: Basic`: the client credentials were refused.
    return oauthFailure(err.status === 401 ? "invalid_client" : "unexpected_response", host, { status: err.status });
  }
  if (err instanceof oauth.OperationProcessingError) {
    if (err.code === oauth.HTTP_REQUEST_FORBIDDEN || err.code === oauth.REQUEST_PROTOCOL_FORBIDDEN) {
      return {
        ...oauthFailure("unexpected_response", host),
        message: "The auth URL must start with https:// (plain http is allowed only for localhost).",
      };
    }
    if (/state/i.test(err.message)) return oauthFailure("invalid_state", host);
    const status = err.cause instanceof Response ? err.cause.status : undefined;
    return oauthFailure(status !== undefined && status >= 500 ? "server_error" : "unexpected_response", host, {
      status,
    });
  }
  if (err instanceof Error && err.name === "TimeoutError") return oauthFailure("timeout", host);
  // fetch's own failures are TypeErrors without a code; oauth4webapi's argument errors carry an ERR_* code.
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof TypeError && !(typeof code === "string" && code.startsWith("ERR_"))) {
    const cause = networkCause(err);
    return {
      ...oauthFailure("network_error", host),
      ...(cause ? { message: `Could not reach ${host} (${cause}).` } : {}),
    };
  }
  return oauthFailure("unexpected_response", host);
}

function toTokenSet(res: oauth.TokenEndpointResponse, now: number, fallbackScopes: string[]): TokenSet {
  return {
    accessToken: res.access_token,
    refreshToken: res.refresh_token ?? null,
    accessTokenExpiresAt: typeof res.expires_in === "number" ? new Date(now + res.expires_in * 1000) : null,
    scopes: typeof res.scope === "string" ? res.scope.split(" ").filter(Boolean) : fallbackScopes,
    workspaceId: typeof res.workspace_id === "string" ? res.workspace_id : null,
  };
}

export interface AuthorizationStart {
  /** Send the customer's browser here. */
  url: URL;
  /** Keep both server-side (session or signed cookie) until the callback; they are single-use. */
  state: string;
  codeVerifier: string;
}

/**
 * Builds the authorization URL with PKCE (S256) and a random state; with `pending`, the URL of an attempt already
 * started (its state and verifier, kept server-side), so a second click sends the same link instead of a new one.
 */
export async function startAuthorization(
  target: ServiceSettings | ServiceContext,
  options: {
    redirectUri: string;
    scopes?: readonly string[];
    extraParams?: Record<string, string>;
    pending?: { state: string; codeVerifier: string };
  },
): Promise<AuthorizationStart> {
  const p = parts(target);
  const codeVerifier = options.pending?.codeVerifier ?? oauth.generateRandomCodeVerifier();
  const state = options.pending?.state ?? oauth.generateRandomState();
  const url = new URL(p.as.authorization_endpoint!);
  url.search = new URLSearchParams({
    ...options.extraParams,
    response_type: "code",
    client_id: p.client.client_id,
    redirect_uri: options.redirectUri,
    scope: (options.scopes ?? SERVICE_SCOPES).join(" "),
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
  }).toString();
  return { url, state, codeVerifier };
}

/** Validates the callback (state, error, issuer) and exchanges the code for tokens. */
export async function completeAuthorization(
  target: ServiceSettings | ServiceContext,
  options: {
    callbackUrl: string | URL;
    expectedState: string;
    codeVerifier: string;
    redirectUri: string;
    /** Used when the token response names no scope. */
    requestedScopes?: readonly string[];
    deps?: ServiceDepsOverrides;
  },
): Promise<OAuthResult<TokenSet>> {
  const p = parts(target, options.deps);
  try {
    const params = oauth.validateAuthResponse(p.as, p.client, new URL(options.callbackUrl), options.expectedState);
    const response = await oauth.authorizationCodeGrantRequest(
      p.as,
      p.client,
      p.clientAuth,
      params,
      options.redirectUri,
      options.codeVerifier,
      requestOptions(p),
    );
    const tokens = await oauth.processAuthorizationCodeResponse(p.as, p.client, response);
    return { ok: true, value: toTokenSet(tokens, p.ctx.deps.now(), [...(options.requestedScopes ?? SERVICE_SCOPES)]) };
  } catch (err) {
    return fromError(err, p.host);
  }
}

/**
 * Exchanges a refresh token for new tokens. The server may rotate the refresh token: when the answer carries a
 * new one, the old one is used up, and the caller must save the new one at once (see imports.ts).
 */
export async function refreshTokens(
  target: ServiceSettings | ServiceContext,
  refreshToken: string,
  options: { scopes?: readonly string[]; currentScopes?: readonly string[]; deps?: ServiceDepsOverrides } = {},
): Promise<OAuthResult<TokenSet>> {
  const p = parts(target, options.deps);
  try {
    const response = await oauth.refreshTokenGrantRequest(p.as, p.client, p.clientAuth, refreshToken, {
      ...requestOptions(p),
      ...(options.scopes ? { additionalParameters: { scope: options.scopes.join(" ") } } : {}),
    });
    const tokens = await oauth.processRefreshTokenResponse(p.as, p.client, response);
    const set = toTokenSet(tokens, p.ctx.deps.now(), [...(options.scopes ?? options.currentScopes ?? [])]);
    return { ok: true, value: { ...set, refreshToken: set.refreshToken ?? refreshToken } };
  } catch (err) {
    return fromError(err, p.host);
  }
}

/** RFC 7009 revocation. Revoking the refresh token ends the whole authorization at the service. */
export async function revokeToken(
  target: ServiceSettings | ServiceContext,
  token: string,
  options: { tokenTypeHint?: "refresh_token" | "access_token"; deps?: ServiceDepsOverrides } = {},
): Promise<OAuthResult<void>> {
  const p = parts(target, options.deps);
  try {
    const response = await oauth.revocationRequest(p.as, p.client, p.clientAuth, token, {
      ...requestOptions(p),
      ...(options.tokenTypeHint ? { additionalParameters: { token_type_hint: options.tokenTypeHint } } : {}),
    });
    await oauth.processRevocationResponse(response);
    return { ok: true, value: undefined };
  } catch (err) {
    return fromError(err, p.host);
  }
}
