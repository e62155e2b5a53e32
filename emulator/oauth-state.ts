// Authorization codes, grants and tokens (docs/service.md, "OAuth 2.0 with PKCE"). A grant is one authorization
// (one code); revoking it revokes every token descended from it in O(1), since tokens check their grant's flag.
import { randomBytes, randomUUID } from "node:crypto";

export const CODE_TTL_MS = 600 * 1000;
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

export interface Grant {
  id: string;
  clientId: string;
  workspaceId: string;
  revoked: boolean;
}

export interface AuthorizationCode {
  grant: Grant;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

export interface IssuedToken {
  grant: Grant;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface RefreshToken extends IssuedToken {
  used: boolean;
}

const opaque = (prefix: string) => `${prefix}_${randomBytes(32).toString("base64url")}`;

export class OAuthState {
  readonly codes = new Map<string, AuthorizationCode>();
  readonly accessTokens = new Map<string, IssuedToken>();
  readonly refreshTokens = new Map<string, RefreshToken>();

  issueCode(
    clientId: string,
    workspaceId: string,
    redirectUri: string,
    codeChallenge: string,
    scopes: string[],
    now: number,
  ) {
    const grant: Grant = { id: randomUUID(), clientId, workspaceId, revoked: false };
    const code = opaque("code");
    this.codes.set(code, { grant, redirectUri, codeChallenge, scopes, expiresAt: now + CODE_TTL_MS, used: false });
    return code;
  }

  /** A new access + refresh token pair under the grant. */
  issueTokens(grant: Grant, scopes: string[], now: number) {
    const accessToken = opaque("at");
    const refreshToken = opaque("rt");
    this.accessTokens.set(accessToken, {
      grant,
      scopes,
      expiresAt: now + ACCESS_TOKEN_TTL_SECONDS * 1000,
      revoked: false,
    });
    this.refreshTokens.set(refreshToken, {
      grant,
      scopes,
      expiresAt: now + REFRESH_TOKEN_TTL_MS,
      revoked: false,
      used: false,
    });
    return {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      refresh_token: refreshToken,
      scope: scopes.join(" "),
      workspace_id: grant.workspaceId,
    };
  }

  /** The access token when it is known, unexpired and neither it nor its grant is revoked. */
  activeAccessToken(token: string, now: number): IssuedToken | undefined {
    const record = this.accessTokens.get(token);
    if (!record || record.revoked || record.grant.revoked || now >= record.expiresAt) return undefined;
    return record;
  }

  clear(): void {
    this.codes.clear();
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }
}
