// A real OAuth client library (oauth4webapi v3) completes code + PKCE, refresh and revocation against the emulator.
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { order, postImport, REDIRECT, start, type TestEmulator } from "./helpers";

let t: TestEmulator;
beforeAll(async () => {
  t = await start();
});
afterAll(() => t.close());

describe("oauth4webapi against the emulator", () => {
  it.each(["basic", "post"] as const)(
    "authorization code + PKCE, refresh and revoke (client_secret_%s)",
    async (method) => {
      // Not an OIDC/discovery server: the metadata is built by hand.
      const as: oauth.AuthorizationServer = {
        issuer: t.url,
        authorization_endpoint: `${t.url}/oauth/authorize`,
        token_endpoint: `${t.url}/oauth/token`,
        revocation_endpoint: `${t.url}/oauth/revoke`,
      };
      const client: oauth.Client = { client_id: "sandbox-client" };
      const clientAuth =
        method === "basic"
          ? oauth.ClientSecretBasic("sandbox-client-secret")
          : oauth.ClientSecretPost("sandbox-client-secret");
      const options = { [oauth.allowInsecureRequests]: true };

      const codeVerifier = oauth.generateRandomCodeVerifier();
      const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
      const state = oauth.generateRandomState();
      const authorizationUrl = new URL(as.authorization_endpoint!);
      authorizationUrl.searchParams.set("client_id", client.client_id);
      authorizationUrl.searchParams.set("redirect_uri", REDIRECT);
      authorizationUrl.searchParams.set("response_type", "code");
      authorizationUrl.searchParams.set("scope", "orders:write shipments:write");
      authorizationUrl.searchParams.set("state", state);
      authorizationUrl.searchParams.set("code_challenge", codeChallenge);
      authorizationUrl.searchParams.set("code_challenge_method", "S256");

      // The customer sees the consent page...
      const consentPage = await fetch(authorizationUrl);
      expect(consentPage.status).toBe(200);
      const html = await consentPage.text();
      // ...and submits its form: every hidden field, a workspace, the checked scopes, and Approve.
      const form = new URLSearchParams();
      for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
        form.append(
          m[1],
          m[2]
            .replace(/&quot;/g, '"')
            .replace(/&#39;/g, "'")
            .replace(/&lt;/g, "<")
            .replace(/&gt;/g, ">")
            .replace(/&amp;/g, "&"),
        );
      }
      form.append("workspace_id", "ws-globex");
      for (const m of html.matchAll(/name="granted_scope" value="([^"]+)" checked/g))
        form.append("granted_scope", m[1]);
      form.append("decision", "approve");
      const action = html.match(/<form method="post" action="([^"]+)"/)?.[1];
      expect(action).toBe("/oauth/authorize");
      const approved = await fetch(new URL(action!, t.url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form,
        redirect: "manual",
      });
      expect(approved.status).toBe(302);
      const callback = new URL(approved.headers.get("location")!);
      expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);

      const params = oauth.validateAuthResponse(as, client, callback, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        REDIRECT,
        codeVerifier,
        options,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      expect(tokens.token_type).toBe("bearer"); // oauth4webapi lowercases it
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.scope).toBe("orders:write shipments:write");
      expect(tokens.workspace_id).toBe("ws-globex");
      expect((await postImport(t, "orders", order("lib-1"), { token: tokens.access_token })).status).toBe(201);

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, options),
      );
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect((await postImport(t, "orders", order("lib-2"), { token: refreshed.access_token })).status).toBe(201);

      // Revoking the refresh token revokes the whole authorization: both access tokens stop working.
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, options),
      );
      for (const token of [tokens.access_token, refreshed.access_token]) {
        const res = await postImport(t, "orders", order("lib-3"), { token });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="service", error="invalid_token"');
      }
      // And the library surfaces the refresh failure as an OAuth error.
      await expect(
        oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, options),
        ),
      ).rejects.toMatchObject({ error: "invalid_grant" });
    },
  );

  it("validateAuthResponse sees access_denied with the state on Deny", async () => {
    const as: oauth.AuthorizationServer = { issuer: t.url, authorization_endpoint: `${t.url}/oauth/authorize` };
    const client: oauth.Client = { client_id: "sandbox-client" };
    const state = oauth.generateRandomState();
    const form = new URLSearchParams({
      response_type: "code",
      client_id: "sandbox-client",
      redirect_uri: REDIRECT,
      scope: "orders:write",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: "S256",
      decision: "deny",
    });
    const res = await fetch(`${t.url}/oauth/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      redirect: "manual",
    });
    expect(() => oauth.validateAuthResponse(as, client, new URL(res.headers.get("location")!), state)).toThrow(
      expect.objectContaining({ error: "access_denied" }),
    );
  });
});
