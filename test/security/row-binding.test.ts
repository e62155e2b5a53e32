// Ciphertexts are bound to their row: someone who can write the database but holds no key cannot move a token or
// secret from one row, column or shop to another and have the app use it there. Each case copies a real
// ciphertext the app wrote, then drives the app's own code over the service emulator (real HTTP): the moved value
// is refused, the row is treated as unreadable in plain words, and nothing decrypted from it is ever sent.
import { randomBytes } from "node:crypto";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { disconnectGrant, listGrants, storeGrant } from "~/connections/grant-lifecycle.server";
import { proofHash } from "~/connections/oauth-common.server";
import { createPrismaGrantStore, UNREADABLE_REASON } from "~/connections/prisma-grant-store.server";
import { drainRevocations, queueRevocations } from "~/connections/revocations.server";
import { checkServiceConnection } from "~/connections/settings-check.server";
import { loadServiceSettings } from "~/connections/settings-loader.server";
import { completeConnect } from "~/connections/storefront-completion.server";
import { EncryptedSessionStorage } from "~/crypto/encrypted-session-storage.server";
import { bindings, parseKeyring, sealFor, SecretBoxError } from "~/crypto/secret-box.server";
import { importOrder, serviceOrigins, type ServiceSettings } from "~/service/client.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { emulatorState, startTestEmulator } from "../helpers/emulator";
import { connectWorkspace, emulatorSettings } from "../helpers/emulator-oauth";
import { serviceSettingsRow } from "../helpers/service-settings";

const keyring = parseKeyring(`rb:${randomBytes(32).toString("base64")}`);
const SHOP = "binding-a.myshopify.com";
const OTHER_SHOP = "binding-b.myshopify.com";
const ORDER = {
  ordered_at: "2026-11-01T10:00:00Z",
  lines: [{ external_line_id: "line-1", title: "Blue mug", quantity: 1 }],
};

let db: TestDatabase;
let emu: RunningEmulator;
let settings: ServiceSettings;

beforeAll(async () => {
  const workspaces = [
    "ws-victim",
    "ws-attacker",
    "ws-other-shop",
    "ws-this-shop",
    "ws-pending-victim",
    "ws-columns",
  ].map((id) => ({ id, name: id }));
  [db, emu] = await Promise.all([createTestDatabase(), startTestEmulator({ workspaces })]);
  settings = emulatorSettings(emu.url);
  for (const shop of [SHOP, OTHER_SHOP]) await configure(shop);
});
afterAll(async () => {
  await emu?.close();
  await db?.close();
});

async function configure(shop: string) {
  await db.prisma.shopSettings.create({ data: serviceSettingsRow(shop, settings, keyring) });
}

/** A customer connected for real at the emulator (tokens it honours), stored the way the completion step stores it. */
async function connected(shop: string, customerId: string, workspaceId: string) {
  const w = await connectWorkspace(emu.url, { workspaceId });
  await storeGrant(
    db.prisma,
    { shop, customerId, workspaceId, tokens: w.tokens, boundOrigins: serviceOrigins(settings) },
    { keyring },
  );
  return w;
}

const grantRow = (shop: string, customerId: string) =>
  db.prisma.customerGrant.findUniqueOrThrow({ where: { shop_customerId: { shop, customerId } } });

/** Copies one customer's stored token ciphertexts into another's row (what a database write without the key can do). */
async function moveTokens(from: { shop: string; customerId: string }, to: { shop: string; customerId: string }) {
  const source = await grantRow(from.shop, from.customerId);
  await db.prisma.customerGrant.update({
    where: { shop_customerId: to },
    data: { accessTokenEnc: source.accessTokenEnc, refreshTokenEnc: source.refreshTokenEnc },
  });
}

/**
 * Imports an order for this customer through the sync engine's grant store: the outcome, the orders the emulator
 * received into `workspaceId`, and how many requests (imports, refreshes) reached the service at all.
 */
async function importFor(shop: string, customerId: string, workspaceId: string) {
  const externalId = `order-${randomBytes(4).toString("hex")}`;
  const store = createPrismaGrantStore(db.prisma, { shop, customerId }, { keyring });
  const before = (await emulatorState(emu)).requests.length;
  const outcome = await importOrder(
    settings,
    store,
    { ...ORDER, external_order_id: externalId },
    { idempotencyKey: externalId },
  );
  const state = await emulatorState(emu);
  const landed = state.orders.filter((o) => o.external_id === externalId && o.workspace_id === workspaceId);
  return { outcome, landed, sent: state.requests.length - before };
}

describe("a token moved to another row does not decrypt there", () => {
  it("another customer's tokens copied into a grant: nothing is sent with them, the grant asks for a reconnect in plain words", async () => {
    await connected(SHOP, "victim", "ws-victim");
    await connected(SHOP, "attacker", "ws-attacker");
    await moveTokens({ shop: SHOP, customerId: "victim" }, { shop: SHOP, customerId: "attacker" });

    // The attacker's orders would land in the victim's workspace if the moved token were used.
    const { outcome, landed, sent } = await importFor(SHOP, "attacker", "ws-victim");
    expect(outcome).toMatchObject({ ok: false, kind: "reconnect_required" });
    expect(landed).toEqual([]);
    expect(sent).toBe(0);

    // The Customers page shows why, and the victim's own connection still works.
    const page = await listGrants(db.prisma, SHOP, { query: "attacker" });
    expect(page.items[0]).toMatchObject({ status: "needs_reconnect", statusReason: UNREADABLE_REASON });
    expect(page.items[0].statusReason).toMatch(/could not be decrypted.*must reconnect/);
    expect((await importFor(SHOP, "victim", "ws-victim")).landed).toHaveLength(1);
  });

  it("disconnecting the row that holds a moved token does not revoke the victim's authorization", async () => {
    const attacker = await grantRow(SHOP, "attacker");
    const result = await disconnectGrant(db.prisma, SHOP, attacker.id, { settings, keyring });
    expect(result).toMatchObject({ ok: true, revoked: false });
    if (result.ok) expect(result.message).toContain("the stored tokens could not be decrypted");
    expect(await db.prisma.customerGrant.count({ where: { shop: SHOP, customerId: "attacker" } })).toBe(0);
    // Nothing queued for later either, and the victim's connection is untouched at the service.
    expect(await db.prisma.tokenRevocation.count()).toBe(0);
    expect((await importFor(SHOP, "victim", "ws-victim")).outcome.ok).toBe(true);
  });

  it("the same customer id's tokens copied from another shop are refused too", async () => {
    await connected(OTHER_SHOP, "42", "ws-other-shop");
    await connected(SHOP, "42", "ws-this-shop");
    await moveTokens({ shop: OTHER_SHOP, customerId: "42" }, { shop: SHOP, customerId: "42" });
    const { outcome, landed, sent } = await importFor(SHOP, "42", "ws-other-shop");
    expect(outcome).toMatchObject({ ok: false, kind: "reconnect_required" });
    expect(landed).toEqual([]);
    expect(sent).toBe(0);
    expect(await grantRow(SHOP, "42")).toMatchObject({ status: "needs_reconnect", statusReason: UNREADABLE_REASON });
  });

  it("another connection's pending tokens copied into a state: the completion step stores nothing", async () => {
    const w = await connectWorkspace(emu.url, { workspaceId: "ws-pending-victim" });
    const state = (s: string) => s.repeat(43);
    const proof = randomBytes(32).toString("base64url");
    const common = {
      shop: SHOP,
      redirectUri: "http://app.test/connect/callback",
      expiresAt: new Date(Date.now() + 600_000),
      boundOrigins: serviceOrigins(settings),
    };
    const victimSealed = sealFor(
      bindings.oauthState({ shop: SHOP, state: state("v") }, "pendingTokensEnc"),
      JSON.stringify(w.tokens),
      keyring,
    );
    await db.prisma.oAuthState.create({
      data: {
        ...common,
        state: state("v"),
        customerId: "pending-victim",
        codeVerifierEnc: "unused",
        pendingTokensEnc: victimSealed,
      },
    });
    await db.prisma.oAuthState.create({
      data: {
        ...common,
        state: state("a"),
        customerId: "pending-attacker",
        codeVerifierEnc: "unused",
        pendingTokensEnc: victimSealed,
        proofHash: proofHash(proof),
        exchangedAt: new Date(),
      },
    });
    const events: string[] = [];
    const result = await completeConnect(
      db.prisma,
      {
        shop: SHOP,
        customerId: "pending-attacker",
        url: `https://${SHOP}/apps/workspace/connect/complete?state=${state("a")}&proof=${proof}`,
        prefix: "/apps/workspace",
      },
      { keyring, log: (event) => events.push(event) },
    );
    expect(result).toMatchObject({ kind: "redirect", result: "failed" });
    expect(events).toContain("connect_complete_decrypt_failed");
    expect(await db.prisma.customerGrant.count({ where: { shop: SHOP, customerId: "pending-attacker" } })).toBe(0);
  });

  it("another shop's offline Shopify session token is treated as no session, never handed out", async () => {
    const storage = new EncryptedSessionStorage(new PrismaSessionStorage(db.prisma), () => keyring);
    for (const shop of [SHOP, OTHER_SHOP]) {
      await storage.storeSession(
        new Session({ id: `offline_${shop}`, shop, state: "", isOnline: false, accessToken: `shpat_${shop}` }),
      );
    }
    const source = await db.prisma.session.findUniqueOrThrow({ where: { id: `offline_${OTHER_SHOP}` } });
    await db.prisma.session.update({ where: { id: `offline_${SHOP}` }, data: { accessToken: source.accessToken } });

    expect(await storage.loadSession(`offline_${SHOP}`)).toBeUndefined();
    expect(await storage.findSessionsByShop(SHOP)).toEqual([]);
    expect((await storage.loadSession(`offline_${OTHER_SHOP}`))?.accessToken).toBe(`shpat_${OTHER_SHOP}`);
  });

  it("a revocation outbox row's sealed token copied into another row is not presented from there", async () => {
    await queueRevocations(
      db.prisma,
      settings,
      [
        { token: "outbox-token-1", hint: "refresh_token" },
        { token: "outbox-token-2", hint: "refresh_token" },
      ],
      { keyring },
    );
    const [first, second] = await db.prisma.tokenRevocation.findMany({ orderBy: { id: "asc" } });
    await db.prisma.tokenRevocation.update({ where: { id: second.id }, data: { sealed: first.sealed } });
    const presented: string[] = [];
    const report = await drainRevocations(db.prisma, {
      keyring,
      revoke: async (_settings, token) => {
        presented.push(token);
        return { ok: true, value: undefined };
      },
    });
    expect(presented).toHaveLength(1); // only from the row it was sealed for
    expect(report).toMatchObject({ revoked: 1, gaveUp: 1 });
  });
});

describe("a value moved to another column does not decrypt there", () => {
  it("a grant's refresh token copied over its access token is never sent as a bearer token", async () => {
    await connected(SHOP, "columns", "ws-columns");
    const row = await grantRow(SHOP, "columns");
    await db.prisma.customerGrant.update({ where: { id: row.id }, data: { accessTokenEnc: row.refreshTokenEnc! } });
    const { outcome, landed, sent } = await importFor(SHOP, "columns", "ws-columns");
    expect(outcome).toMatchObject({ ok: false, kind: "reconnect_required" });
    expect(landed).toEqual([]);
    expect(sent).toBe(0); // neither the refresh token as a bearer token nor a refresh with it
    expect(await grantRow(SHOP, "columns")).toMatchObject({
      status: "needs_reconnect",
      statusReason: UNREADABLE_REASON,
    });
  });

  it("the signing secret copied over the client secret: the settings refuse to load and the check says so in plain words", async () => {
    const row = await db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: OTHER_SHOP } });
    await db.prisma.shopSettings.update({
      where: { shop: OTHER_SHOP },
      data: { clientSecretEnc: row.signingSecretEnc },
    });
    await expect(loadServiceSettings(db.prisma, OTHER_SHOP, keyring)).rejects.toBeInstanceOf(SecretBoxError);
    const check = await checkServiceConnection(db.prisma, OTHER_SHOP, { keyring });
    expect(check.ok).toBe(false);
    expect(check.message).toMatch(
      /stored secret cannot be decrypted.*enter the client secret and signing secret again/,
    );
    expect(check.message).not.toContain(settings.signingSecret);
  });
});
