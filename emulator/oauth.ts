// OAuth 2.0 endpoints (docs/service.md, "OAuth 2.0 with PKCE"): authorize (consent page + form), token (code +
// PKCE S256, refresh rotation with reuse detection), revoke (RFC 7009).
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { ClientState } from "./clients";
import type { Context } from "./context";
import {
  escapeHtml,
  html,
  json,
  page,
  parseForm,
  redirect,
  single,
  type Headers,
  type Params,
  type Reply,
} from "./http";

export const SUPPORTED_SCOPES = ["orders:write", "shipments:write"] as const;

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

interface AuthorizationRequest {
  client: ClientState;
  redirectUri: string;
  state: string;
  scopes: string[];
  codeChallenge: string;
}

type Validated = { ok: true; request: AuthorizationRequest } | { ok: false; reply: Reply };

function errorPage(status: number, title: string, detail: string): Reply {
  return html(status, page(title, `<p>${escapeHtml(detail)}</p>`));
}

function redirectTo(redirectUri: string, params: Record<string, string | undefined>): Reply {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.append(k, v);
  // String concatenation keeps the registered URI byte for byte (URL() would normalise it).
  return redirect(`${redirectUri}${redirectUri.includes("?") ? "&" : "?"}${query}`);
}

/** Space-separated scope list; empty tokens (doubled spaces) are ignored and duplicates collapse. */
function scopeList(value: string): string[] {
  return [...new Set(value.split(" ").filter((s) => s !== ""))];
}

/** Shared by GET and POST /oauth/authorize: the checks before any consent. */
function validateAuthorization(ctx: Context, params: Params): Validated {
  const clientId = single(params, "client_id");
  const client = clientId ? ctx.clients.get(clientId) : undefined;
  if (!client)
    return { ok: false, reply: errorPage(400, "Unknown application", "The client_id is missing or not registered.") };
  const redirectUri = single(params, "redirect_uri");
  if (!redirectUri || !client.config.redirect_uris.includes(redirectUri)) {
    return {
      ok: false,
      reply: errorPage(
        400,
        "Invalid redirect URI",
        "The redirect_uri is missing or not registered for this application.",
      ),
    };
  }
  const state = single(params, "state");
  const fail = (error: string, description: string): Validated => ({
    ok: false,
    reply: redirectTo(redirectUri, { error, error_description: description, state: state ?? undefined }),
  });
  const responseType = single(params, "response_type");
  if (!responseType) return fail("invalid_request", "response_type is required");
  if (responseType !== "code") return fail("unsupported_response_type", "only response_type=code is supported");
  if (!state) return fail("invalid_request", "state is required");
  const method = single(params, "code_challenge_method");
  if (method !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
  const codeChallenge = single(params, "code_challenge");
  if (!codeChallenge || !CODE_CHALLENGE.test(codeChallenge)) {
    return fail("invalid_request", "code_challenge must be 43 to 128 base64url characters");
  }
  const scope = single(params, "scope");
  if (scope === null) return fail("invalid_request", "scope must not be repeated");
  const scopes = scope ? scopeList(scope) : [];
  if (scopes.length === 0 || !scopes.every((s) => (SUPPORTED_SCOPES as readonly string[]).includes(s))) {
    return fail("invalid_scope", `scope must be a non-empty subset of: ${SUPPORTED_SCOPES.join(" ")}`);
  }
  return { ok: true, request: { client, redirectUri, state, scopes, codeChallenge } };
}

export function authorizeGet(ctx: Context, url: URL, params: Params): Reply {
  const validated = validateAuthorization(ctx, params);
  if (!validated.ok) return validated.reply;
  const r = validated.request;
  const hidden = (name: string, value: string) =>
    `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
  const workspaces = [...ctx.workspaces.values()]
    .map(
      (w, i) =>
        `<label><input type="radio" name="workspace_id" value="${escapeHtml(w.id)}"${i === 0 ? " checked" : ""}> ${escapeHtml(w.name)} (${escapeHtml(w.id)})</label><br>`,
    )
    .join("\n");
  const scopes = r.scopes
    .map(
      (s) =>
        `<label><input type="checkbox" name="granted_scope" value="${escapeHtml(s)}" checked> ${escapeHtml(s)}</label><br>`,
    )
    .join("\n");
  const body = `<p><strong>${escapeHtml(r.client.config.client_id)}</strong> asks to write data into one of your workspaces.</p>
<form method="post" action="${escapeHtml(url.pathname)}">
${hidden("response_type", "code")}
${hidden("client_id", r.client.config.client_id)}
${hidden("redirect_uri", r.redirectUri)}
${hidden("scope", r.scopes.join(" "))}
${hidden("state", r.state)}
${hidden("code_challenge", r.codeChallenge)}
${hidden("code_challenge_method", "S256")}
<fieldset><legend>Workspace</legend>
${workspaces}
</fieldset>
<fieldset><legend>Permissions to grant</legend>
${scopes}
</fieldset>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
  return html(200, page("Authorize access", body), { "cache-control": "no-store" });
}

export function authorizePost(ctx: Context, req: IncomingMessage, bytes: Buffer): Reply {
  const form = parseForm(req, bytes);
  const validated = validateAuthorization(ctx, form);
  if (!validated.ok) return validated.reply;
  const r = validated.request;
  const fail = (error: string, description: string) =>
    redirectTo(r.redirectUri, { error, error_description: description, state: r.state });
  const decision = single(form, "decision");
  if (decision === "deny") return fail("access_denied", "the customer denied the request");
  if (decision !== "approve") return fail("invalid_request", "decision must be approve or deny");
  const workspaceId = single(form, "workspace_id");
  if (!workspaceId || !ctx.workspaces.has(workspaceId)) return fail("invalid_request", "unknown workspace_id");
  const grantedValues = form.get("granted_scope");
  let granted = r.scopes;
  if (grantedValues !== undefined) {
    granted = [...new Set(grantedValues.flatMap(scopeList))];
    if (granted.length === 0 || !granted.every((s) => r.scopes.includes(s))) {
      return fail("invalid_scope", "granted_scope must be a non-empty subset of the requested scope");
    }
  }
  const code = ctx.oauth.issueCode(
    r.client.config.client_id,
    workspaceId,
    r.redirectUri,
    r.codeChallenge,
    granted,
    ctx.now(),
  );
  return redirectTo(r.redirectUri, { code, state: r.state });
}

/** RFC 6749 5.2 error body: the human detail goes in `error_description`, as OAuth clients expect. */
function oauthError(status: number, error: string, description: string, headers: Headers = {}): Reply {
  return { ...json(status, { error, error_description: description }, { ...NO_STORE, ...headers }), error };
}

function tokenError(error: string, description: string): Reply {
  return oauthError(400, error, description);
}

function invalidClient(description: string): Reply {
  return oauthError(401, "invalid_client", description, { "www-authenticate": 'Basic realm="service"' });
}

/** RFC 6749 2.3.1: Basic credentials are form-urlencoded before base64. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

/** client_secret_basic or client_secret_post (only one of them per request). */
function authenticateClient(
  ctx: Context,
  req: IncomingMessage,
  form: Params,
): { client: ClientState } | { reply: Reply } {
  const authorization = req.headers.authorization;
  const basic = authorization?.match(/^Basic\s+([A-Za-z0-9+/=]*)\s*$/i);
  if (basic) {
    if (form.has("client_secret"))
      return { reply: tokenError("invalid_request", "use one client authentication method") };
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const id = colon >= 0 ? formDecode(decoded.slice(0, colon)) : undefined;
    const secret = colon >= 0 ? formDecode(decoded.slice(colon + 1)) : undefined;
    const bodyId = single(form, "client_id");
    if (id === undefined || secret === undefined || (bodyId !== undefined && bodyId !== id)) {
      return { reply: invalidClient("client authentication failed") };
    }
    const client = ctx.clients.authenticate(id, secret);
    return client ? { client } : { reply: invalidClient("client authentication failed") };
  }
  const id = single(form, "client_id");
  const secret = single(form, "client_secret");
  if (!id || !secret) return { reply: invalidClient("client authentication is required") };
  const client = ctx.clients.authenticate(id, secret);
  return client ? { client } : { reply: invalidClient("client authentication failed") };
}

function pkceMatches(verifier: string, challenge: string): boolean {
  return createHash("sha256").update(verifier, "ascii").digest("base64url") === challenge;
}

export function token(ctx: Context, req: IncomingMessage, bytes: Buffer): Reply {
  const form = parseForm(req, bytes);
  const auth = authenticateClient(ctx, req, form);
  if ("reply" in auth) return auth.reply;
  const clientId = auth.client.config.client_id;
  const now = ctx.now();
  const grantType = single(form, "grant_type");
  if (!grantType) return tokenError("invalid_request", "grant_type is required");

  if (grantType === "authorization_code") {
    const code = single(form, "code");
    const redirectUri = single(form, "redirect_uri");
    const verifier = single(form, "code_verifier");
    if (!code || !redirectUri || !verifier) {
      return tokenError("invalid_request", "code, redirect_uri and code_verifier are required");
    }
    const record = ctx.oauth.codes.get(code);
    if (!record || record.grant.clientId !== clientId) return tokenError("invalid_grant", "unknown authorization code");
    if (record.used) {
      record.grant.revoked = true; // RFC 6749 4.1.2: a reused code revokes what it issued
      return tokenError("invalid_grant", "authorization code already used");
    }
    if (now >= record.expiresAt) return tokenError("invalid_grant", "authorization code expired");
    if (record.redirectUri !== redirectUri) return tokenError("invalid_grant", "redirect_uri does not match");
    // A wrong verifier leaves the code usable (docs/service.md), so nobody can burn a code they merely intercepted.
    if (!CODE_VERIFIER.test(verifier) || !pkceMatches(verifier, record.codeChallenge)) {
      return tokenError("invalid_grant", "code_verifier does not match");
    }
    record.used = true;
    return json(200, ctx.oauth.issueTokens(record.grant, record.scopes, now), NO_STORE);
  }

  if (grantType === "refresh_token") {
    const refreshToken = single(form, "refresh_token");
    if (!refreshToken) return tokenError("invalid_request", "refresh_token is required");
    const scope = single(form, "scope");
    if (scope === null) return tokenError("invalid_request", "scope must not be repeated");
    const record = ctx.oauth.refreshTokens.get(refreshToken);
    if (!record || record.grant.clientId !== clientId || record.revoked || record.grant.revoked) {
      return tokenError("invalid_grant", "unknown or revoked refresh token");
    }
    if (record.used) {
      record.grant.revoked = true; // reuse of a rotated token: revoke the whole authorization
      return tokenError("invalid_grant", "refresh token already used");
    }
    if (now >= record.expiresAt) return tokenError("invalid_grant", "refresh token expired");
    let scopes = record.scopes;
    if (scope !== undefined) {
      scopes = scopeList(scope);
      if (scopes.length === 0 || !scopes.every((s) => record.scopes.includes(s))) {
        return tokenError("invalid_scope", "scope may narrow but never widen the granted scope");
      }
    }
    record.used = true;
    return json(200, ctx.oauth.issueTokens(record.grant, scopes, now), NO_STORE);
  }

  return tokenError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
}

export function revoke(ctx: Context, req: IncomingMessage, bytes: Buffer): Reply {
  const form = parseForm(req, bytes);
  const auth = authenticateClient(ctx, req, form);
  if ("reply" in auth) return auth.reply;
  const value = single(form, "token");
  if (!value) return tokenError("invalid_request", "token is required");
  const clientId = auth.client.config.client_id;
  const refresh = ctx.oauth.refreshTokens.get(value);
  if (refresh && refresh.grant.clientId === clientId) refresh.grant.revoked = true;
  const access = ctx.oauth.accessTokens.get(value);
  if (access && access.grant.clientId === clientId) access.revoked = true;
  return { status: 200, headers: NO_STORE, body: "" };
}
