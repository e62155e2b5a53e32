// The app's OAuth client (app/service/oauth.server.ts, oauth4webapi) against a third-party authorization server,
// oidc-provider from npm, not our emulator: authorization code + PKCE (required), refresh and revocation,
// with client_secret_basic and client_secret_post.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  completeAuthorization,
  refreshTokens,
  revokeToken,
  startAuthorization,
  type ServiceSettings,
} from "~/service/client.server";

const REDIRECT = "http://localhost:3000/connect/callback";
const SCOPES = ["orders:write", "shipments:write"];
let server: Server;
let issuer: string;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = (id: string, method: string) => ({
    client_id: id,
    client_secret: `${id}-secret-value-long-enough`,
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
  });
  const provider = new Provider(issuer, {
    clients: [client("app-basic", "client_secret_basic"), client("app-post", "client_secret_post")],
    scopes: SCOPES,
    pkce: { required: () => true },
    features: { revocation: { enabled: true }, devInteractions: { enabled: false } },
    // The same paths as the service's contract, so the client is used exactly as configured for the service.
    routes: { authorization: "/oauth/authorize", token: "/oauth/token", revocation: "/oauth/revoke" },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, c: { grantTypeAllowed(t: string): boolean }) =>
      c.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    cookies: { keys: ["oidc-provider-test-cookie-key"] },
  });
  const handle = provider.callback();
  // Plays the customer: logs in as "customer-1" and grants the requested scopes, with no HTML in between.
  server.on("request", async (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return handle(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: "customer-1", clientId: details.params.client_id });
      grant.addOIDCScope(details.params.scope);
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: "customer-1" }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const settingsFor = (clientId: string, clientAuthMethod?: ServiceSettings["clientAuthMethod"]): ServiceSettings => ({
  environment: "sandbox",
  baseUrl: "http://127.0.0.1:9",
  sandboxBaseUrl: "http://127.0.0.1:9",
  authUrl: issuer,
  clientId,
  clientSecret: `${clientId}-secret-value-long-enough`,
  signingSecret: "unused",
  clientAuthMethod,
});

/** A browser in miniature: follows redirects by hand, carrying cookies, until the app's redirect URI. */
async function browse(start: URL): Promise<string> {
  const jar = new Map<string, string>();
  let url = start.toString();
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(REDIRECT)) return url;
    const res = await fetch(url, {
      redirect: "manual",
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    const location = res.headers.get("location");
    const body = await res.text();
    if (!location) throw new Error(`no redirect from ${url}: ${res.status} ${body.slice(0, 300)}`);
    url = new URL(location, url).toString();
  }
  throw new Error("too many redirects");
}

async function connect(settings: ServiceSettings) {
  const start = await startAuthorization(settings, { redirectUri: REDIRECT, scopes: SCOPES });
  expect(start.url.searchParams.get("code_challenge_method")).toBe("S256");
  expect(start.url.searchParams.get("state")).toBe(start.state);
  const callback = await browse(start.url);
  return { start, callback };
}

describe("OAuth client against oidc-provider", () => {
  for (const method of ["client_secret_basic", "client_secret_post"] as const) {
    it(`authorization code + PKCE, refresh (rotating) and revoke with ${method}`, async () => {
      const settings = settingsFor(method === "client_secret_basic" ? "app-basic" : "app-post", method);
      const { start, callback } = await connect(settings);
      expect(new URL(callback).searchParams.get("state")).toBe(start.state);

      const tokens = await completeAuthorization(settings, {
        callbackUrl: callback,
        expectedState: start.state,
        codeVerifier: start.codeVerifier,
        redirectUri: REDIRECT,
      });
      if (!tokens.ok) throw new Error(tokens.message);
      expect(tokens.value.accessToken).toMatch(/^[\w-]{20,}$/);
      expect(tokens.value.refreshToken).toMatch(/^[\w-]{20,}$/);
      expect(tokens.value.scopes.sort()).toEqual(SCOPES);
      expect(tokens.value.accessTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now());

      const refreshed = await refreshTokens(settings, tokens.value.refreshToken!);
      if (!refreshed.ok) throw new Error(refreshed.message);
      expect(refreshed.value.accessToken).not.toBe(tokens.value.accessToken);
      expect(refreshed.value.refreshToken).not.toBe(tokens.value.refreshToken); // rotated

      expect(await revokeToken(settings, refreshed.value.refreshToken!, { tokenTypeHint: "refresh_token" })).toEqual({
        ok: true,
        value: undefined,
      });
      expect(await refreshTokens(settings, refreshed.value.refreshToken!)).toMatchObject({
        ok: false,
        kind: "invalid_grant",
        retryable: false,
      });
    });
  }

  it("a wrong code_verifier is refused (PKCE is enforced), and so is a callback with another state", async () => {
    const settings = settingsFor("app-basic");
    const { start, callback } = await connect(settings);
    const wrongState = await completeAuthorization(settings, {
      callbackUrl: callback,
      expectedState: "another-state",
      codeVerifier: start.codeVerifier,
      redirectUri: REDIRECT,
    });
    expect(wrongState).toMatchObject({ ok: false, kind: "invalid_state" });
    const wrongVerifier = await completeAuthorization(settings, {
      callbackUrl: callback,
      expectedState: start.state,
      codeVerifier: "x".repeat(43),
      redirectUri: REDIRECT,
    });
    expect(wrongVerifier).toMatchObject({ ok: false, kind: "invalid_grant" });
  });

  it("the server requires PKCE: an authorization request without a challenge is refused", async () => {
    const settings = settingsFor("app-basic");
    const start = await startAuthorization(settings, { redirectUri: REDIRECT, scopes: SCOPES });
    start.url.searchParams.delete("code_challenge");
    start.url.searchParams.delete("code_challenge_method");
    const callback = await browse(start.url);
    const out = await completeAuthorization(settings, {
      callbackUrl: callback,
      expectedState: start.state,
      codeVerifier: start.codeVerifier,
      redirectUri: REDIRECT,
    });
    expect(out).toMatchObject({ ok: false, kind: "invalid_callback", errorCode: "invalid_request" });
  });

  it("a wrong client secret is invalid_client", async () => {
    const settings = { ...settingsFor("app-basic"), clientSecret: "not-the-secret" };
    expect(await refreshTokens(settings, "whatever")).toMatchObject({ ok: false, kind: "invalid_client" });
  });
});
