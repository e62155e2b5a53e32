// Shared test helpers: an emulator on a free port with a hand-driven clock, signed handoffs, OAuth tokens.
import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startEmulator, type EmulatorConfig, type RunningEmulator } from "../server";
import { sign } from "../signature";

export const T0 = Date.parse("2026-11-22T12:00:00.000Z");
export const REDIRECT = "http://localhost:3000/connect/callback";
export const OTHER_REDIRECT = "https://other.example/cb";

/** Two apps; a rate limit so large that only the rate-limit tests meet it. */
export const TEST_CONFIG: EmulatorConfig = {
  clients: [
    {
      client_id: "sandbox-client",
      client_secret: "sandbox-client-secret",
      signing_secrets: ["whsec-test-0001"],
      redirect_uris: [REDIRECT, "https://app.example/cb?tenant=1"],
    },
    {
      client_id: "other-client",
      client_secret: "other secret:with+chars",
      signing_secrets: ["whsec-other-0001"],
      redirect_uris: [OTHER_REDIRECT],
    },
  ],
  workspaces: [
    { id: "ws-acme", name: "Acme Workspace" },
    { id: "ws-globex", name: "Globex Workspace" },
  ],
  rate_limit: { capacity: 1_000_000, leak_per_second: 1000 },
};

export interface TestEmulator {
  em: RunningEmulator;
  url: string;
  /** The emulator's clock, in ms; tests move it instead of sleeping. */
  clock: { now: number };
  advance(seconds: number): void;
  close(): Promise<void>;
}

/**
 * One emulator for the test file, forgotten (reset) before each test. The returned object is filled in before the
 * first test runs, so tests use it as they would the result of `start()`.
 */
export function sharedEmulator(): TestEmulator {
  const t = {} as TestEmulator;
  beforeAll(async () => {
    Object.assign(t, await start());
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await fetch(`${t.url}/_emulator/reset`, { method: "POST" });
  });
  return t;
}

export async function start(config: EmulatorConfig = TEST_CONFIG, t0 = T0): Promise<TestEmulator> {
  const clock = { now: t0 };
  const em = await startEmulator({ port: 0, config, now: () => clock.now });
  return {
    em,
    url: em.url,
    clock,
    advance: (seconds) => {
      clock.now += seconds * 1000;
    },
    close: () => em.close(),
  };
}

export const nonce = () => randomUUID();

export interface HandoffOptions {
  clientId?: string;
  secret?: string;
  /** Object bodies are JSON-encoded; strings are sent as they are. */
  body?: unknown;
  idempotencyKey?: string | null;
  nonce?: string;
  timestamp?: string;
  contentType?: string | null;
  /** Replaces the computed X-Service-Signature. */
  signature?: string;
  /** Extra or overriding headers; a null value removes the header. */
  headers?: Record<string, string | null>;
  path?: string;
}

export function cart(lines = 1, extra: Record<string, unknown> = {}) {
  return {
    external_cart_id: "cart-1",
    cart_reference: "ref-1",
    lines: Array.from({ length: lines }, (_, i) => ({
      external_line_id: `l${i}`,
      title: `Item ${i}`,
      quantity: 1,
    })),
    ...extra,
  };
}

/** POST /api/v1/cart-handoffs, signed as docs/service.md says, at the emulator's current time. */
export async function postHandoff(t: TestEmulator, o: HandoffOptions = {}): Promise<Response> {
  const clientId = o.clientId ?? "sandbox-client";
  const body =
    o.body === undefined ? JSON.stringify(cart()) : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
  const idempotencyKey = o.idempotencyKey === undefined ? `key-${randomUUID()}` : o.idempotencyKey;
  const n = o.nonce ?? nonce();
  const timestamp = o.timestamp ?? String(Math.floor(t.clock.now / 1000));
  const path = o.path ?? "/api/v1/cart-handoffs";
  const signature =
    o.signature ??
    `v1=${sign(o.secret ?? "whsec-test-0001", {
      method: "POST",
      pathWithQuery: path,
      clientId,
      timestamp,
      nonce: n,
      idempotencyKey: idempotencyKey ?? undefined,
      body,
    })}`;
  const headers: Record<string, string> = {
    "x-service-client-id": clientId,
    "x-service-timestamp": timestamp,
    "x-service-nonce": n,
    "x-service-signature": signature,
  };
  if (o.contentType !== null) headers["content-type"] = o.contentType ?? "application/json";
  if (idempotencyKey !== null) headers["idempotency-key"] = idempotencyKey;
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  return fetch(t.url + path, { method: "POST", headers, body });
}

export const pkce = () => {
  const verifier = `${randomUUID()}-${randomUUID()}`; // 73 characters of the verifier alphabet
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
};

export interface AuthorizeParams {
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  response_type?: string;
}

export function authorizeQuery(p: AuthorizeParams & { challenge?: string } = {}): URLSearchParams {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: "sandbox-client",
    redirect_uri: REDIRECT,
    scope: "orders:write shipments:write",
    state: "st-1",
    code_challenge: p.challenge ?? pkce().challenge,
    code_challenge_method: "S256",
  });
  for (const [k, v] of Object.entries(p)) {
    if (k !== "challenge" && v !== undefined) q.set(k, v);
  }
  return q;
}

/** POSTs the consent form; returns the redirect Location parsed as a URL (or the response when not a redirect). */
export async function consent(
  t: TestEmulator,
  form: URLSearchParams,
): Promise<{ res: Response; location: URL | null }> {
  const res = await fetch(`${t.url}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
    redirect: "manual",
  });
  const loc = res.headers.get("location");
  return { res, location: loc ? new URL(loc) : null };
}

/** An approved code for the given scopes and workspace. */
export async function getCode(
  t: TestEmulator,
  o: { scope?: string; workspace?: string; clientId?: string; redirectUri?: string; granted?: string[] } = {},
) {
  const { verifier, challenge } = pkce();
  const form = authorizeQuery({
    client_id: o.clientId ?? "sandbox-client",
    redirect_uri: o.redirectUri ?? (o.clientId === "other-client" ? OTHER_REDIRECT : REDIRECT),
    scope: o.scope ?? "orders:write shipments:write",
    challenge,
  });
  form.set("workspace_id", o.workspace ?? "ws-acme");
  form.set("decision", "approve");
  for (const g of o.granted ?? []) form.append("granted_scope", g);
  const { location } = await consent(t, form);
  const code = location?.searchParams.get("code");
  if (!code) throw new Error(`no code in ${location}`);
  return { code, verifier, redirectUri: form.get("redirect_uri")! };
}

export const SECRETS: Record<string, string> = Object.fromEntries(
  TEST_CONFIG.clients.map((c) => [c.client_id, c.client_secret]),
);

export function basic(clientId: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString("base64")}`;
}

/** POST to /oauth/token or /oauth/revoke with client_secret_basic (default) or client_secret_post. */
export async function oauthPost(
  t: TestEmulator,
  path: "/oauth/token" | "/oauth/revoke",
  params: Record<string, string>,
  auth: { clientId?: string; secret?: string; method?: "basic" | "post" | "none" } = {},
): Promise<Response> {
  const clientId = auth.clientId ?? "sandbox-client";
  const secret = auth.secret ?? SECRETS[clientId];
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  const form = new URLSearchParams(params);
  if ((auth.method ?? "basic") === "basic") headers.authorization = basic(clientId, secret);
  else if (auth.method === "post") {
    form.set("client_id", clientId);
    form.set("client_secret", secret);
  }
  return fetch(t.url + path, { method: "POST", headers, body: form });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  workspace_id: string;
  token_type: string;
  expires_in: number;
}

/** Runs authorize + token exchange; returns the token response. */
export async function getTokens(
  t: TestEmulator,
  o: { scope?: string; workspace?: string; clientId?: string; granted?: string[] } = {},
): Promise<Tokens> {
  const { code, verifier, redirectUri } = await getCode(t, o);
  const res = await oauthPost(
    t,
    "/oauth/token",
    { grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier },
    { clientId: o.clientId },
  );
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Tokens;
}

export function order(externalId = "order-1", lines = 1, extra: Record<string, unknown> = {}) {
  return {
    external_order_id: externalId,
    ordered_at: "2026-11-22T10:00:00Z",
    lines: Array.from({ length: lines }, (_, i) => ({ external_line_id: `ol${i}`, title: `Line ${i}`, quantity: 1 })),
    ...extra,
  };
}

export function shipment(
  externalId = "ship-1",
  orderId = "order-1",
  lineIds = ["ol0"],
  extra: Record<string, unknown> = {},
) {
  return {
    external_shipment_id: externalId,
    external_order_id: orderId,
    shipped_at: "2026-11-22T11:00:00+02:00",
    lines: lineIds.map((id) => ({ external_order_line_id: id, quantity: 1 })),
    ...extra,
  };
}

export interface ImportOptions {
  token?: string | null;
  idempotencyKey?: string | null;
  contentType?: string | null;
  authorization?: string;
}

/** POST /api/v1/orders or /api/v1/shipments with a bearer token. */
export async function postImport(
  t: TestEmulator,
  kind: "orders" | "shipments",
  body: unknown,
  o: ImportOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (o.authorization !== undefined) headers.authorization = o.authorization;
  else if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.contentType !== null) headers["content-type"] = o.contentType ?? "application/json";
  const key = o.idempotencyKey === undefined ? `key-${randomUUID()}` : o.idempotencyKey;
  if (key !== null) headers["idempotency-key"] = key;
  return fetch(`${t.url}/api/v1/${kind}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const errorOf = async (res: Response): Promise<string> => ((await res.json()) as { error: string }).error;

export async function state(t: TestEmulator) {
  const res = await fetch(`${t.url}/_emulator/state`);
  return (await res.json()) as {
    handoffs: Record<string, unknown>[];
    orders: Record<string, unknown>[];
    shipments: Record<string, unknown>[];
    requests: Record<string, unknown>[];
  };
}

export async function addFault(t: TestEmulator, fault: Record<string, unknown>): Promise<Response> {
  return fetch(`${t.url}/_emulator/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(fault),
  });
}
