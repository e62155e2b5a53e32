// Drives the emulator's OAuth consent with the app's own OAuth client (app/service/oauth.server.ts), so a test gets a
// connected grant the way a real customer would: authorize → consent form POST → callback → code exchange.
import {
  completeAuthorization,
  startAuthorization,
  type ServiceSettings,
  type TokenSet,
} from "~/service/client.server";
import { DEFAULT_CONFIG, startEmulator, type RunningEmulator } from "../../emulator/server";

export interface ConnectOptions {
  clientId?: string;
  clientSecret?: string;
  redirectUri?: string;
  workspaceId?: string;
  /** Requested scopes; default both write scopes. */
  scopes?: string[];
  /** Scopes the customer ticks on the consent page; default all requested. */
  grantedScopes?: string[];
  clientAuthMethod?: ServiceSettings["clientAuthMethod"];
}

export interface ConnectedWorkspace {
  accessToken: string;
  refreshToken: string;
  /** Seconds, as the token endpoint said (undefined when it did not). */
  expiresIn: number | undefined;
  accessTokenExpiresAt: Date | null;
  scope: string;
  scopes: string[];
  workspaceId: string;
  tokens: TokenSet;
}

/** Emulator settings for the app's client: every URL at the emulator, the documented sandbox app's credentials. */
/** The emulator's sandbox app, with the OAuth callback of the app under test registered as its redirect URI. */
export function startEmulatorFor(appUrl: string): Promise<RunningEmulator> {
  const client = DEFAULT_CONFIG.clients[0];
  return startEmulator({
    port: 0,
    config: { ...DEFAULT_CONFIG, clients: [{ ...client, redirect_uris: [`${appUrl}/connect/callback`] }] },
  });
}

export function emulatorSettings(emulatorUrl: string, overrides: Partial<ServiceSettings> = {}): ServiceSettings {
  return {
    environment: "sandbox",
    baseUrl: emulatorUrl,
    sandboxBaseUrl: emulatorUrl,
    authUrl: emulatorUrl,
    clientId: "sandbox-client",
    clientSecret: "sandbox-client-secret",
    signingSecret: "whsec-sandbox-0001",
    ...overrides,
  };
}

export async function connectWorkspace(emulatorUrl: string, options: ConnectOptions = {}): Promise<ConnectedWorkspace> {
  const redirectUri = options.redirectUri ?? "http://localhost:3000/connect/callback";
  const scopes = options.scopes ?? ["orders:write", "shipments:write"];
  const settings = emulatorSettings(emulatorUrl, {
    ...(options.clientId ? { clientId: options.clientId } : {}),
    ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
    ...(options.clientAuthMethod ? { clientAuthMethod: options.clientAuthMethod } : {}),
  });
  const start = await startAuthorization(settings, { redirectUri, scopes });

  const page = await fetch(start.url, { redirect: "manual" });
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${await page.text()}`);
  await page.body?.cancel();

  const form = new URLSearchParams(start.url.searchParams);
  form.set("workspace_id", options.workspaceId ?? "ws-acme");
  form.set("decision", "approve");
  if (options.grantedScopes) form.set("granted_scope", options.grantedScopes.join(" "));
  const consent = await fetch(new URL("/oauth/authorize", emulatorUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
    redirect: "manual",
  });
  const location = consent.headers.get("location");
  await consent.body?.cancel();
  if (consent.status !== 302 || !location) throw new Error(`consent answered ${consent.status}, no redirect`);

  const result = await completeAuthorization(settings, {
    callbackUrl: location,
    expectedState: start.state,
    codeVerifier: start.codeVerifier,
    redirectUri,
    requestedScopes: scopes,
  });
  if (!result.ok) throw new Error(`code exchange failed: ${result.kind} (${result.message})`);
  const tokens = result.value;
  if (!tokens.refreshToken) throw new Error("the emulator issued no refresh token");
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresIn: tokens.accessTokenExpiresAt
      ? Math.round((tokens.accessTokenExpiresAt.getTime() - Date.now()) / 1000)
      : undefined,
    accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    scope: tokens.scopes.join(" "),
    scopes: tokens.scopes,
    workspaceId: tokens.workspaceId ?? options.workspaceId ?? "ws-acme",
    tokens,
  };
}
