// OAuth 2.0 endpoints (docs/service.md, "OAuth 2.0 with PKCE"): authorize, consent, token (code + PKCE, refresh),
// revoke.
import { describe, expect, it } from "vitest";
import {
  authorizeQuery,
  basic,
  consent,
  errorOf,
  getCode,
  getTokens,
  oauthPost,
  order,
  pkce,
  postImport,
  REDIRECT,
  sharedEmulator,
  shipment,
} from "./helpers";

const t = sharedEmulator();

const authorizeGet = (q: URLSearchParams) => fetch(`${t.url}/oauth/authorize?${q}`, { redirect: "manual" });
const locationOf = (res: Response) => new URL(res.headers.get("location") ?? "about:blank");
const works = async (accessToken: string) =>
  (await postImport(t, "orders", order(), { token: accessToken })).status === 201;

describe("GET /oauth/authorize", () => {
  it("renders a consent page with workspace radios, scope checkboxes and approve/deny buttons", async () => {
    const res = await authorizeGet(authorizeQuery({ state: `<script>"&'` }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('type="radio" name="workspace_id" value="ws-acme"');
    expect(html).toContain('type="radio" name="workspace_id" value="ws-globex"');
    expect(html).toContain('type="checkbox" name="granted_scope" value="orders:write"');
    expect(html).toContain('type="checkbox" name="granted_scope" value="shipments:write"');
    expect(html).toContain('name="decision" value="approve"');
    expect(html).toContain('name="decision" value="deny"');
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;&quot;&amp;&#39;");
  });

  it("unknown client, unregistered or missing redirect_uri: a 400 page, no redirect", async () => {
    for (const q of [
      authorizeQuery({ client_id: "nobody" }),
      authorizeQuery({ redirect_uri: "http://localhost:3000/connect/callback/" }),
      authorizeQuery({ redirect_uri: "https://other.example/cb" }), // registered for another client
      authorizeQuery({ redirect_uri: "" }),
    ]) {
      const res = await authorizeGet(q);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
    const noClient = authorizeQuery();
    noClient.delete("client_id");
    expect((await authorizeGet(noClient)).status).toBe(400);
  });

  it.each([
    ["unsupported_response_type", { response_type: "token" }],
    ["invalid_request", { response_type: "" }],
    ["invalid_request", { code_challenge_method: "plain" }],
    ["invalid_request", { code_challenge_method: "" }],
    ["invalid_request", { code_challenge: "short" }],
    ["invalid_request", { code_challenge: "a".repeat(42) }],
    ["invalid_request", { code_challenge: "a".repeat(129) }],
    ["invalid_request", { code_challenge: `${"a".repeat(42)}=` }],
    ["invalid_scope", { scope: "" }],
    ["invalid_scope", { scope: "orders:read" }],
    ["invalid_scope", { scope: "orders:write admin" }],
  ])("redirects with error=%s for %j, echoing state", async (error, params) => {
    const res = await authorizeGet(authorizeQuery(params));
    expect(res.status).toBe(302);
    const loc = locationOf(res);
    expect(`${loc.origin}${loc.pathname}`).toBe(REDIRECT);
    expect(loc.searchParams.get("error")).toBe(error);
    expect(loc.searchParams.get("state")).toBe("st-1");
  });

  it("code_challenge of 43 and 128 characters are accepted; a single scope is fine", async () => {
    expect((await authorizeGet(authorizeQuery({ code_challenge: "a".repeat(43) }))).status).toBe(200);
    expect((await authorizeGet(authorizeQuery({ code_challenge: "a".repeat(128) }))).status).toBe(200);
    expect((await authorizeGet(authorizeQuery({ scope: "shipments:write" }))).status).toBe(200);
  });

  it("state is required", async () => {
    const q = authorizeQuery();
    q.delete("state");
    const res = await authorizeGet(q);
    expect(res.status).toBe(302);
    expect(locationOf(res).searchParams.get("error")).toBe("invalid_request");
    expect(locationOf(res).searchParams.has("state")).toBe(false);
  });

  it("scope is required: absent is invalid_scope (RFC 6749 3.3)", async () => {
    const q = authorizeQuery();
    q.delete("scope");
    const res = await authorizeGet(q);
    expect(locationOf(res).searchParams.get("error")).toBe("invalid_scope");
    expect(locationOf(res).searchParams.get("state")).toBe("st-1");
  });

  it("code_challenge_method is required (absent is refused)", async () => {
    const q = authorizeQuery();
    q.delete("code_challenge_method");
    const res = await authorizeGet(q);
    expect(locationOf(res).searchParams.get("error")).toBe("invalid_request");
  });

  it("keeps a registered redirect URI's own query when redirecting", async () => {
    const res = await authorizeGet(authorizeQuery({ redirect_uri: "https://app.example/cb?tenant=1", scope: "nope" }));
    const loc = locationOf(res);
    expect(loc.searchParams.get("tenant")).toBe("1");
    expect(loc.searchParams.get("error")).toBe("invalid_scope");
  });
});

describe("POST /oauth/authorize", () => {
  const form = (extra: Record<string, string | string[]>, scope = "orders:write shipments:write") => {
    const f = authorizeQuery({ scope });
    for (const [k, v] of Object.entries(extra)) for (const value of [v].flat()) f.append(k, value);
    return f;
  };

  it("approve: 302 to redirect_uri with code and state", async () => {
    const { res, location } = await consent(t, form({ workspace_id: "ws-acme", decision: "approve" }));
    expect(res.status).toBe(302);
    expect(location?.searchParams.get("code")).toBeTruthy();
    expect(location?.searchParams.get("state")).toBe("st-1");
    expect(location?.searchParams.has("error")).toBe(false);
  });

  it("deny: access_denied with state", async () => {
    const { location } = await consent(t, form({ workspace_id: "ws-acme", decision: "deny" }));
    expect(location?.searchParams.get("error")).toBe("access_denied");
    expect(location?.searchParams.get("state")).toBe("st-1");
    expect(location?.searchParams.has("code")).toBe(false);
  });

  it("unknown or missing workspace: invalid_request; missing decision: invalid_request", async () => {
    const cases: Record<string, string>[] = [
      { workspace_id: "ws-nope", decision: "approve" },
      { decision: "approve" },
      { workspace_id: "ws-acme" },
    ];
    for (const extra of cases) {
      const { location } = await consent(t, form(extra));
      expect(location?.searchParams.get("error")).toBe("invalid_request");
      expect(location?.searchParams.get("state")).toBe("st-1");
    }
  });

  it("the authorization request checks apply again (400 page for an unknown client)", async () => {
    const f = form({ workspace_id: "ws-acme", decision: "approve" });
    f.set("client_id", "nobody");
    const { res } = await consent(t, f);
    expect(res.status).toBe(400);
    const f2 = form({ workspace_id: "ws-acme", decision: "approve" });
    f2.set("code_challenge_method", "plain");
    expect((await consent(t, f2)).location?.searchParams.get("error")).toBe("invalid_request");
  });

  it("granted_scope: repeated or space-separated subset; absent means all; outside or empty: invalid_scope", async () => {
    const tokensFor = async (granted: string[] | undefined, scope = "orders:write shipments:write") => {
      const { verifier, challenge } = pkce();
      const f = authorizeQuery({ scope, challenge });
      f.set("workspace_id", "ws-acme");
      f.set("decision", "approve");
      for (const g of granted ?? []) f.append("granted_scope", g);
      const { location } = await consent(t, f);
      const code = location?.searchParams.get("code");
      if (!code) return location?.searchParams.get("error");
      const res = await oauthPost(t, "/oauth/token", {
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      return ((await res.json()) as { scope: string }).scope;
    };
    expect(await tokensFor(undefined)).toBe("orders:write shipments:write");
    expect(await tokensFor(["orders:write"])).toBe("orders:write");
    expect(await tokensFor(["shipments:write", "orders:write"])).toBe("shipments:write orders:write");
    expect(await tokensFor(["orders:write shipments:write"])).toBe("orders:write shipments:write");
    expect(await tokensFor(["shipments:write"], "orders:write")).toBe("invalid_scope");
    expect(await tokensFor(["admin"])).toBe("invalid_scope");
    expect(await tokensFor([""])).toBe("invalid_scope");
  });
});

describe("POST /oauth/token: authorization_code", () => {
  it("200 with the documented fields; client_secret_basic and client_secret_post both work", async () => {
    for (const method of ["basic", "post"] as const) {
      const { code, verifier } = await getCode(t, { workspace: "ws-globex" });
      const res = await oauthPost(
        t,
        "/oauth/token",
        { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier },
        { method },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(
        ["access_token", "expires_in", "refresh_token", "scope", "token_type", "workspace_id"].sort(),
      );
      expect(body).toMatchObject({
        token_type: "Bearer",
        expires_in: 3600,
        scope: "orders:write shipments:write",
        workspace_id: "ws-globex",
      });
    }
  });

  it("Basic credentials are form-urlencoded before base64", async () => {
    const { code, verifier } = await getCode(t, { clientId: "other-client" });
    const res = await oauthPost(
      t,
      "/oauth/token",
      { grant_type: "authorization_code", code, redirect_uri: "https://other.example/cb", code_verifier: verifier },
      { clientId: "other-client" },
    );
    expect(res.status).toBe(200);
  });

  it('client authentication failures: 401 invalid_client with WWW-Authenticate: Basic realm="service"', async () => {
    const params = {
      grant_type: "authorization_code",
      code: "x",
      redirect_uri: REDIRECT,
      code_verifier: "v".repeat(43),
    };
    const attempts = [
      oauthPost(t, "/oauth/token", params, { secret: "wrong" }),
      oauthPost(t, "/oauth/token", params, { secret: "wrong", method: "post" }),
      oauthPost(t, "/oauth/token", params, { method: "none" }),
      oauthPost(t, "/oauth/token", { ...params, client_id: "sandbox-client" }, { method: "none" }),
      oauthPost(t, "/oauth/token", params, { clientId: "nobody", secret: "x" }),
      // The raw (not form-encoded) secret of other-client contains ':' and '+': it must be encoded to work.
      fetch(`${t.url}/oauth/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from("other-client:other secret:with+chars").toString("base64")}`,
        },
        body: new URLSearchParams(params),
      }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="service"');
      const body = (await res.json()) as Record<string, string>;
      expect(body.error).toBe("invalid_client");
      expect(typeof body.error_description).toBe("string");
    }
  });

  it("a failed client authentication does not use the code up", async () => {
    const { code, verifier } = await getCode(t);
    const params = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier };
    expect((await oauthPost(t, "/oauth/token", params, { secret: "wrong" })).status).toBe(401);
    expect((await oauthPost(t, "/oauth/token", params)).status).toBe(200);
  });

  it("a wrong or malformed code_verifier: invalid_grant, and the code is still usable", async () => {
    const { code, verifier } = await getCode(t);
    for (const wrong of [pkce().verifier, "short", `${verifier}x`]) {
      const res = await oauthPost(t, "/oauth/token", {
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        code_verifier: wrong,
      });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toBe("invalid_grant");
    }
    const ok = await oauthPost(t, "/oauth/token", {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(ok.status).toBe(200);
  });

  it("missing code, redirect_uri or code_verifier: invalid_request", async () => {
    const { code, verifier } = await getCode(t);
    const full = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier };
    for (const drop of ["code", "redirect_uri", "code_verifier"] as const) {
      const params: Record<string, string> = { ...full };
      delete params[drop];
      const res = await oauthPost(t, "/oauth/token", params);
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toBe("invalid_request");
    }
  });

  it("a different redirect_uri: invalid_grant", async () => {
    const { code, verifier } = await getCode(t);
    const res = await oauthPost(t, "/oauth/token", {
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/cb?tenant=1",
      code_verifier: verifier,
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_grant");
  });

  it("codes are bound to their client", async () => {
    const { code, verifier } = await getCode(t);
    const res = await oauthPost(
      t,
      "/oauth/token",
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier },
      { clientId: "other-client" },
    );
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_grant");
  });

  it("codes are valid 600 s", async () => {
    const a = await getCode(t);
    const b = await getCode(t);
    t.clock.now += 599_999; // 1 ms before the end of its 600 s
    const ok = await oauthPost(t, "/oauth/token", {
      grant_type: "authorization_code",
      code: a.code,
      redirect_uri: REDIRECT,
      code_verifier: a.verifier,
    });
    expect(ok.status).toBe(200);
    t.clock.now += 1;
    const late = await oauthPost(t, "/oauth/token", {
      grant_type: "authorization_code",
      code: b.code,
      redirect_uri: REDIRECT,
      code_verifier: b.verifier,
    });
    expect(late.status).toBe(400);
    expect(await errorOf(late)).toBe("invalid_grant");
  });

  it("a reused code gets invalid_grant and revokes the tokens issued from it", async () => {
    const { code, verifier } = await getCode(t);
    const params = { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier };
    const tokens = (await (await oauthPost(t, "/oauth/token", params)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    expect(await works(tokens.access_token)).toBe(true);
    const reuse = await oauthPost(t, "/oauth/token", params);
    expect(reuse.status).toBe(400);
    expect(await errorOf(reuse)).toBe("invalid_grant");
    expect(await works(tokens.access_token)).toBe(false);
    const refresh = await oauthPost(t, "/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
    });
    expect(await errorOf(refresh)).toBe("invalid_grant");
  });

  it("unknown code; missing or unsupported grant_type", async () => {
    const unknown = await oauthPost(t, "/oauth/token", {
      grant_type: "authorization_code",
      code: "nope",
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
    });
    expect(await errorOf(unknown)).toBe("invalid_grant");
    const missing = await oauthPost(t, "/oauth/token", {});
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toBe("invalid_request");
    const unsupported = await oauthPost(t, "/oauth/token", { grant_type: "client_credentials" });
    expect(unsupported.status).toBe(400);
    expect(await errorOf(unsupported)).toBe("unsupported_grant_type");
  });

  it("using both Basic and client_secret in the form is refused", async () => {
    const res = await fetch(`${t.url}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: basic("sandbox-client", "sandbox-client-secret"),
      },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: "x",
        client_secret: "sandbox-client-secret",
      }),
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_request");
  });
});

describe("POST /oauth/token: refresh_token", () => {
  const refresh = (token: string, extra: Record<string, string> = {}, auth: Parameters<typeof oauthPost>[3] = {}) =>
    oauthPost(t, "/oauth/token", { grant_type: "refresh_token", refresh_token: token, ...extra }, auth);

  it("rotates the refresh token; the earlier access token stays valid", async () => {
    const first = await getTokens(t);
    const res = await refresh(first.refresh_token, {}, { method: "post" });
    expect(res.status).toBe(200);
    const second = (await res.json()) as typeof first;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second).toMatchObject({
      token_type: "Bearer",
      expires_in: 3600,
      scope: first.scope,
      workspace_id: "ws-acme",
    });
    expect(await works(first.access_token)).toBe(true);
    expect(await works(second.access_token)).toBe(true);
  });

  it("reuse of a used refresh token: invalid_grant, and every token of the authorization is revoked", async () => {
    const first = await getTokens(t);
    const second = (await (await refresh(first.refresh_token)).json()) as typeof first;
    const third = (await (await refresh(second.refresh_token)).json()) as typeof first;
    const unrelated = await getTokens(t);
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(await errorOf(reuse)).toBe("invalid_grant");
    for (const tok of [first, second, third]) expect(await works(tok.access_token)).toBe(false);
    expect(await errorOf(await refresh(third.refresh_token))).toBe("invalid_grant");
    expect(await works(unrelated.access_token)).toBe(true);
  });

  it("may narrow the scope (new tokens carry it) but never widen it", async () => {
    const first = await getTokens(t);
    const narrowed = (await (await refresh(first.refresh_token, { scope: "shipments:write" })).json()) as typeof first;
    expect(narrowed.scope).toBe("shipments:write");
    const o = await postImport(t, "orders", order(), { token: narrowed.access_token });
    expect(o.status).toBe(403);
    // The narrowed refresh token cannot widen back.
    const widen = await refresh(narrowed.refresh_token, { scope: "orders:write shipments:write" });
    expect(widen.status).toBe(400);
    expect(await errorOf(widen)).toBe("invalid_scope");
    // A failed widening does not use the token up.
    const again = await refresh(narrowed.refresh_token);
    expect(again.status).toBe(200);
    expect(((await again.json()) as typeof first).scope).toBe("shipments:write");

    const orderOnly = await getTokens(t, { scope: "orders:write" });
    const bad = await refresh(orderOnly.refresh_token, { scope: "shipments:write" });
    expect(await errorOf(bad)).toBe("invalid_scope");
    const unknown = await refresh(orderOnly.refresh_token, { scope: "admin" });
    expect(await errorOf(unknown)).toBe("invalid_scope");
  });

  it("bad, foreign or missing refresh token", async () => {
    expect(await errorOf(await refresh("nope"))).toBe("invalid_grant");
    const mine = await getTokens(t);
    const foreign = await refresh(mine.refresh_token, {}, { clientId: "other-client" });
    expect(await errorOf(foreign)).toBe("invalid_grant");
    expect((await refresh(mine.refresh_token)).status).toBe(200); // untouched by the foreign attempt
    const missing = await oauthPost(t, "/oauth/token", { grant_type: "refresh_token" });
    expect(await errorOf(missing)).toBe("invalid_request");
  });

  it("refresh tokens expire after 30 days unused", async () => {
    const a = await getTokens(t);
    const b = await getTokens(t);
    t.advance(30 * 24 * 3600 - 1);
    expect((await refresh(a.refresh_token)).status).toBe(200);
    t.advance(1);
    expect(await errorOf(await refresh(b.refresh_token))).toBe("invalid_grant");
  });
});

describe("POST /oauth/revoke", () => {
  const revoke = (token: string, auth: Parameters<typeof oauthPost>[3] = {}) =>
    oauthPost(t, "/oauth/revoke", { token }, auth);

  it("revoking an access token revokes that token only", async () => {
    const first = await getTokens(t);
    const res = await revoke(first.access_token);
    expect(res.status).toBe(200);
    expect(await works(first.access_token)).toBe(false);
    const next = (await (
      await oauthPost(t, "/oauth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token })
    ).json()) as typeof first;
    expect(await works(next.access_token)).toBe(true);
  });

  it("revoking a refresh token revokes every token of its authorization", async () => {
    const first = await getTokens(t);
    const second = (await (
      await oauthPost(t, "/oauth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token })
    ).json()) as typeof first;
    expect((await revoke(second.refresh_token, { method: "post" })).status).toBe(200);
    expect(await works(first.access_token)).toBe(false);
    expect(await works(second.access_token)).toBe(false);
    const res = await oauthPost(t, "/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: second.refresh_token,
    });
    expect(await errorOf(res)).toBe("invalid_grant");
  });

  it("200 whatever the token; another client's token is left alone", async () => {
    expect((await revoke("not-a-token")).status).toBe(200);
    const mine = await getTokens(t);
    expect((await revoke(mine.access_token, { clientId: "other-client" })).status).toBe(200);
    expect((await revoke(mine.refresh_token, { clientId: "other-client" })).status).toBe(200);
    expect(await works(mine.access_token)).toBe(true);
  });

  it("needs client authentication: 401 invalid_client", async () => {
    const mine = await getTokens(t);
    for (const auth of [{ method: "none" as const }, { secret: "wrong" }]) {
      const res = await revoke(mine.access_token, auth);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="service"');
      expect(await errorOf(res)).toBe("invalid_client");
    }
    expect(await works(mine.access_token)).toBe(true);
  });

  it("a missing token parameter is a malformed request", async () => {
    const res = await oauthPost(t, "/oauth/revoke", {});
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_request");
  });

  it("a revoked token fails with invalid_token on both endpoints", async () => {
    const mine = await getTokens(t);
    await revoke(mine.access_token);
    const res = await postImport(t, "shipments", shipment(), { token: mine.access_token });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="service", error="invalid_token"');
  });
});
