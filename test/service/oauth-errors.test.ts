// The OAuth wrapper's failure mapping with a scripted fetch: network trouble, timeouts, odd error bodies,
// an http auth URL that is not loopback, and the authorization URL's PKCE parameters.
import { describe, expect, it } from "vitest";
import { completeAuthorization, refreshTokens, revokeToken, startAuthorization } from "~/service/client.server";
import { controlled, json, scriptedFetch, SETTINGS } from "./support";

describe("OAuth failures in plain words", () => {
  it("builds the authorization URL with S256 PKCE, state, scopes and the registered redirect", async () => {
    const start = await startAuthorization(SETTINGS, { redirectUri: "https://app.example/cb" });
    expect(start.url.origin + start.url.pathname).toBe("https://auth.example.test/oauth/authorize");
    const q = start.url.searchParams;
    expect(Object.fromEntries(q)).toMatchObject({
      response_type: "code",
      client_id: "sandbox-client",
      redirect_uri: "https://app.example/cb",
      scope: "orders:write shipments:write",
      state: start.state,
      code_challenge_method: "S256",
    });
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(start.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(start.url.toString()).not.toContain(SETTINGS.clientSecret);
  });

  it("a callback carrying an error (customer declined) is access_denied", async () => {
    const out = await completeAuthorization(SETTINGS, {
      callbackUrl: "https://app.example/cb?error=access_denied&state=s1",
      expectedState: "s1",
      codeVerifier: "v".repeat(43),
      redirectUri: "https://app.example/cb",
    });
    expect(out).toMatchObject({
      ok: false,
      kind: "access_denied",
      retryable: false,
      message: "The customer declined the connection.",
    });
  });

  it("network errors, timeouts and 5xx at the token endpoint are retryable", async () => {
    const refused = new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) });
    const cases: [Parameters<typeof scriptedFetch>[0][number], string][] = [
      [refused, "network_error"],
      [new Response("<html>bad gateway</html>", { status: 502 }), "server_error"],
      [json(503, { error: "temporarily_unavailable" }), "server_error"],
      [json(400, { error: "invalid_grant", error_description: "used" }), "invalid_grant"],
      [json(401, { error: "invalid_client" }, { "www-authenticate": 'Basic realm="service"' }), "invalid_client"],
      [json(200, { token_type: "bearer" }), "unexpected_response"],
    ];
    for (const [answer, kind] of cases) {
      const { fetch } = scriptedFetch([answer]);
      const out = await refreshTokens(SETTINGS, "rt-secret", { deps: controlled(fetch).deps });
      expect(out, kind).toMatchObject({ ok: false, kind });
      expect(JSON.stringify(out)).not.toContain("rt-secret");
    }
    const hang = ((_u: string, init?: RequestInit) =>
      new Promise((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)),
      )) as typeof fetch;
    expect(await revokeToken(SETTINGS, "t", { deps: controlled(hang, { timeoutMs: 30 }).deps })).toMatchObject({
      ok: false,
      kind: "timeout",
      retryable: true,
    });
  });

  it("refuses a plain-http auth URL that is not loopback, in words", async () => {
    const { calls, fetch } = scriptedFetch([json(200, {})]);
    const out = await refreshTokens({ ...SETTINGS, authUrl: "http://auth.example.test" }, "rt", {
      deps: controlled(fetch).deps,
    });
    expect(out).toMatchObject({
      ok: false,
      message: "The auth URL must start with https:// (plain http is allowed only for localhost).",
    });
    expect(calls).toHaveLength(0);
  });

  it("keeps the old refresh token when the server does not rotate, and the old scopes when it names none", async () => {
    const { fetch } = scriptedFetch([json(200, { access_token: "at-2", token_type: "Bearer" })]);
    const out = await refreshTokens(SETTINGS, "rt-1", {
      currentScopes: ["orders:write"],
      deps: controlled(fetch).deps,
    });
    expect(out).toEqual({
      ok: true,
      value: {
        accessToken: "at-2",
        refreshToken: "rt-1",
        accessTokenExpiresAt: null,
        scopes: ["orders:write"],
        workspaceId: null,
      },
    });
  });
});
