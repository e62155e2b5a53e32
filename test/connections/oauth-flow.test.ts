// The connect flow's module (no Remix) against the emulator, with an injected clock and a log collector:
// state lifetime, one-time use, the pending tokens between callback and completion, the hook, and that nothing
// secret reaches a log line or a result.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, startEmulator, type RunningEmulator } from "../../emulator/server";
import { handleOAuthCallback } from "~/connections/oauth-callback.server";
import { STATE_TTL_MS } from "~/connections/oauth-common.server";
import { startConnect } from "~/connections/oauth-start.server";
import { completeConnect } from "~/connections/storefront-completion.server";
import { renderConnectPage, escapeForLiquid } from "~/connections/connect-page.server";
import { bindings, openFor, parseKeyring } from "~/crypto/secret-box.server";
import { checkServiceConnection } from "~/connections/settings-check.server";
import { saveSettings } from "~/connections/settings-store.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { emulatorSettings } from "../helpers/emulator-oauth";

const APP = "http://app.test";
const SHOP = "flow.myshopify.com";
const keyring = parseKeyring(`f1:${randomBytes(32).toString("base64")}`);
let db: TestDatabase;
let emu: RunningEmulator;

beforeAll(async () => {
  db = await createTestDatabase();
  emu = await startEmulator({
    port: 0,
    config: {
      ...DEFAULT_CONFIG,
      clients: [{ ...DEFAULT_CONFIG.clients[0], redirect_uris: [`${APP}/connect/callback`] }],
    },
  });
  const saved = await saveSettings(db.prisma, SHOP, { ...emulatorSettings(emu.url) }, { keyring });
  expect(saved.ok).toBe(true);
}, 60_000);
afterAll(async () => {
  await emu?.close();
  await db?.close();
});

/** The storefront completion step the callback sent the browser to, as the proxy would hand it over. */
async function finish(
  completionUrl: string,
  customerId: string | null,
  options: Parameters<typeof completeConnect>[2] = {},
) {
  return completeConnect(
    db.prisma,
    { shop: SHOP, customerId, url: completionUrl, prefix: "/apps/workspace" },
    { keyring, ...options },
  );
}

async function approve(authorizationUrl: string) {
  const url = new URL(authorizationUrl);
  const form = new URLSearchParams(url.searchParams);
  form.set("workspace_id", "ws-globex");
  form.set("decision", "approve");
  const res = await fetch(new URL("/oauth/authorize", emu.url), { method: "POST", body: form, redirect: "manual" });
  return res.headers.get("location")!;
}

describe("oauth flow module", () => {
  it("connects, calls the hook once, and logs no secret", async () => {
    const lines: string[] = [];
    const hooks: unknown[] = [];
    const t0 = new Date();
    const started = await startConnect(
      db.prisma,
      { shop: SHOP, customerId: "55", customerName: "{{ customer.name | escape }}" },
      { appUrl: APP, keyring, now: t0 },
    );
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    const state = await db.prisma.oAuthState.findUniqueOrThrow({
      where: { state: new URL(started.authorizationUrl).searchParams.get("state")! },
    });
    expect(state.expiresAt.getTime() - t0.getTime()).toBe(STATE_TTL_MS);
    expect(state.customerName).toBeNull(); // unrendered Liquid is not a name
    const verifier = openFor(bindings.oauthState(state, "codeVerifierEnc"), state.codeVerifierEnc, keyring);

    const log = (event: string, facts: Record<string, unknown>) => lines.push(JSON.stringify({ event, ...facts }));
    const onConnected = async (e: { shop: string; customerId: string }) => {
      hooks.push(e);
      throw new Error("a failing hook must not fail the connection");
    };
    // The callback exchanges the code but stores no grant: it sends the browser to the store's completion step.
    const callback = await handleOAuthCallback(db.prisma, await approve(started.authorizationUrl), {
      keyring,
      log,
      onConnected,
    });
    expect(callback).toMatchObject({ kind: "redirect", result: "pending" });
    if (callback.kind !== "redirect") return;
    expect(callback.location).toMatch(
      new RegExp(`^https://${SHOP}/apps/workspace/connect/complete\\?state=${state.state}&proof=[\\w-]{43}$`),
    );
    expect(hooks).toEqual([]);
    expect(await db.prisma.customerGrant.count({ where: { shop: SHOP, customerId: "55" } })).toBe(0);
    const pendingRow = await db.prisma.oAuthState.findUniqueOrThrow({ where: { state: state.state } });
    const pending = JSON.parse(
      openFor(bindings.oauthState(pendingRow, "pendingTokensEnc"), pendingRow.pendingTokensEnc!, keyring),
    ) as { accessToken: string; refreshToken: string };
    expect(pendingRow.exchangedAt).not.toBeNull();
    expect(pendingRow.proofHash).not.toContain(new URL(callback.location).searchParams.get("proof")!);

    const result = await finish(callback.location, "55", { log, onConnected });
    expect(result).toMatchObject({
      kind: "redirect",
      result: "connected",
      location: `https://${SHOP}/apps/workspace/connect?result=connected`,
    });
    expect(hooks).toEqual([{ shop: SHOP, customerId: "55" }]);
    expect(
      (await db.prisma.oAuthState.findUniqueOrThrow({ where: { state: state.state } })).pendingTokensEnc,
    ).toBeNull();

    const grant = await db.prisma.customerGrant.findUniqueOrThrow({
      where: { shop_customerId: { shop: SHOP, customerId: "55" } },
    });
    expect(grant.workspaceId).toBe("ws-globex");
    expect(openFor(bindings.customerGrant(grant, "accessTokenEnc"), grant.accessTokenEnc, keyring)).toBe(
      pending.accessToken,
    );
    const secrets = [verifier, pending.accessToken, pending.refreshToken, "sandbox-client-secret"];
    const logged = lines.join("\n") + JSON.stringify(result) + JSON.stringify(callback);
    for (const secret of secrets) expect(logged).not.toContain(secret);
    expect(lines.some((l) => l.includes("customer_connected"))).toBe(true);
  });

  it("a state is dead after ten minutes by the injected clock", async () => {
    const t0 = new Date();
    const started = await startConnect(db.prisma, { shop: SHOP, customerId: "56" }, { appUrl: APP, keyring, now: t0 });
    if (!started.ok) throw new Error("not started");
    const callback = await approve(started.authorizationUrl);
    const late = await handleOAuthCallback(db.prisma, callback, {
      keyring,
      now: new Date(t0.getTime() + STATE_TTL_MS + 1),
    });
    expect(late).toMatchObject({ kind: "redirect", result: "expired" });
    expect(await db.prisma.customerGrant.count({ where: { shop: SHOP, customerId: "56" } })).toBe(0);
  });

  it("reconnecting revokes the previous authorization at the service", async () => {
    const first = await db.prisma.customerGrant.findUniqueOrThrow({
      where: { shop_customerId: { shop: SHOP, customerId: "55" } },
    });
    const oldRefresh = openFor(bindings.customerGrant(first, "refreshTokenEnc"), first.refreshTokenEnc!, keyring);
    const started = await startConnect(db.prisma, { shop: SHOP, customerId: "55" }, { appUrl: APP, keyring });
    if (!started.ok) throw new Error("not started");
    const callback = await handleOAuthCallback(db.prisma, await approve(started.authorizationUrl), { keyring });
    if (callback.kind !== "redirect") throw new Error("no redirect");
    expect(await finish(callback.location, "55")).toMatchObject({ result: "connected" });
    const second = await db.prisma.customerGrant.findUniqueOrThrow({ where: { id: first.id } });
    expect(second.tokenVersion).toBe(first.tokenVersion + 1);
    const { refreshTokens } = await import("~/service/client.server");
    const reuse = await refreshTokens(emulatorSettings(emu.url), oldRefresh);
    expect(reuse).toMatchObject({ ok: false, kind: "invalid_grant" });
  });

  it("a different customer finishing gets nothing; the tokens are revoked, and the log names no secret", async () => {
    const lines: string[] = [];
    const log = (event: string, facts: Record<string, unknown>) => lines.push(JSON.stringify({ event, ...facts }));
    const started = await startConnect(db.prisma, { shop: SHOP, customerId: "57" }, { appUrl: APP, keyring });
    if (!started.ok) throw new Error("not started");
    const callback = await handleOAuthCallback(db.prisma, await approve(started.authorizationUrl), { keyring, log });
    if (callback.kind !== "redirect") throw new Error("no redirect");
    const stateRow = await db.prisma.oAuthState.findUniqueOrThrow({
      where: { state: new URL(started.authorizationUrl).searchParams.get("state")! },
    });
    const pending = JSON.parse(
      openFor(bindings.oauthState(stateRow, "pendingTokensEnc"), stateRow.pendingTokensEnc!, keyring),
    ) as { accessToken: string; refreshToken: string };
    const hooks: unknown[] = [];
    const result = await finish(callback.location, "58", { log, onConnected: async (e) => void hooks.push(e) });
    expect(result).toMatchObject({ kind: "redirect", result: "wrong_customer" });
    expect(hooks).toEqual([]);
    expect(await db.prisma.customerGrant.count({ where: { shop: SHOP, customerId: { in: ["57", "58"] } } })).toBe(0);
    const { refreshTokens } = await import("~/service/client.server");
    expect(await refreshTokens(emulatorSettings(emu.url), pending.refreshToken)).toMatchObject({
      ok: false,
      kind: "invalid_grant",
    });
    expect(lines.some((l) => l.includes("connect_complete_wrong_customer"))).toBe(true);
    const logged = lines.join("\n") + JSON.stringify(result) + JSON.stringify(callback);
    for (const secret of [pending.accessToken, pending.refreshToken]) expect(logged).not.toContain(secret);
    // Anonymous: a login redirect back to the same step; nothing touched.
    expect(await finish(callback.location, null)).toMatchObject({ kind: "login" });
  });

  it("a shop without settings gets not_configured and no state", async () => {
    const result = await startConnect(
      db.prisma,
      { shop: "none.myshopify.com", customerId: "1" },
      { appUrl: APP, keyring },
    );
    expect(result).toMatchObject({ ok: false, code: "not_configured" });
    expect(await db.prisma.oAuthState.count({ where: { shop: "none.myshopify.com" } })).toBe(0);
  });
});

describe("storefront page", () => {
  it("escapes stored values for HTML and Liquid", () => {
    const html = renderConnectPage({
      prefix: "/apps/workspace",
      configured: true,
      result: null,
      csrfToken: "t",
      connection: {
        workspaceId: "{{ shop.secret }}<script>",
        scopes: ["orders:write"],
        status: "active",
        connectedAt: new Date().toISOString(),
      },
    });
    expect(html).not.toContain("{{ shop.secret }}");
    expect(html).not.toContain("<script>");
    expect(html).toContain(escapeForLiquid("{{ shop.secret }}<script>"));
  });
});

describe("settings module", () => {
  it("check connection explains secrets it cannot decrypt instead of failing", async () => {
    const otherKeys = parseKeyring(`other:${randomBytes(32).toString("base64")}`);
    const report = await checkServiceConnection(db.prisma, SHOP, { keyring: otherKeys });
    expect(report).toMatchObject({ ok: false, message: expect.stringContaining("cannot be decrypted") });
    const startWithWrongKey = await startConnect(
      db.prisma,
      { shop: SHOP, customerId: "77" },
      { appUrl: APP, keyring: otherKeys },
    );
    expect(startWithWrongKey).toMatchObject({ ok: false, code: "not_configured" });
  });
});
