// Revocation without gaps, against the emulator's real RFC 7009 endpoint: a token the app lets go of is ended at
// the service, at once or later by the worker's outbox, and never blocks the person who let it go.
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { STATE_TTL_MS } from "~/connections/oauth-common.server";
import { startConnect } from "~/connections/oauth-start.server";
import { handleOAuthCallback } from "~/connections/oauth-callback.server";
import { completeConnect } from "~/connections/storefront-completion.server";
import { disconnectGrant, storeGrant } from "~/connections/grant-lifecycle.server";
import { saveSettings } from "~/connections/settings-store.server";
import { parseKeyring } from "~/crypto/secret-box.server";
import { housekeepingTask, runHousekeeping } from "~/privacy/housekeeping.server";
import { drainRevocations, MAX_ATTEMPTS, queueRevocations } from "~/connections/revocations.server";
import { refreshTokens, serviceOrigins } from "~/service/client.server";
import { startWorker } from "~/sync/job-runner.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { connectWorkspace, emulatorSettings, startEmulatorFor } from "../helpers/emulator-oauth";

const APP = "http://app.test";
const SHOP = "revoke.myshopify.com";
const keyring = parseKeyring(`r1:${randomBytes(32).toString("base64")}`);
let db: TestDatabase;
let emu: RunningEmulator;

beforeAll(async () => {
  [db, emu] = await Promise.all([createTestDatabase(), startEmulatorFor(APP)]);
  expect((await saveSettings(db.prisma, SHOP, { ...emulatorSettings(emu.url) }, { keyring })).ok).toBe(true);
}, 60_000);
afterAll(async () => {
  await emu?.close();
  await db?.close();
});
beforeEach(async () => {
  await db.prisma.tokenRevocation.deleteMany();
});

/** True while the service still honours the refresh token (a refresh then rotates it, so use it once). */
async function stillValid(refreshToken: string) {
  const result = await refreshTokens(emulatorSettings(emu.url), refreshToken);
  return result.ok;
}

async function fault(body: Record<string, unknown>) {
  const res = await fetch(`${emu.url}/_emulator/faults`, { method: "POST", body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

/** A shopper's connection up to the store's completion step (the service has issued tokens). */
async function exchanged(customerId: string, now = new Date()) {
  const started = await startConnect(db.prisma, { shop: SHOP, customerId }, { appUrl: APP, keyring, now });
  if (!started.ok) throw new Error("not configured");
  const form = new URLSearchParams(new URL(started.authorizationUrl).searchParams);
  form.set("workspace_id", "ws-globex");
  form.set("decision", "approve");
  const consent = await fetch(new URL("/oauth/authorize", emu.url), { method: "POST", body: form, redirect: "manual" });
  const callback = await handleOAuthCallback(db.prisma, consent.headers.get("location")!, { keyring, now });
  if (callback.kind !== "redirect" || callback.result !== "pending")
    throw new Error(`callback failed: ${JSON.stringify(callback)}`);
  return callback.location;
}

const pendingRefreshToken = async (customerId: string) => {
  const row = await db.prisma.oAuthState.findFirstOrThrow({ where: { shop: SHOP, customerId } });
  const { bindings, openFor } = await import("~/crypto/secret-box.server");
  return (
    JSON.parse(openFor(bindings.oauthState(row, "pendingTokensEnc"), row.pendingTokensEnc!, keyring)) as {
      refreshToken: string;
    }
  ).refreshToken;
};

describe("the revocation outbox", () => {
  it("retries with backoff while the service fails, then revokes; nothing else is kept", async () => {
    const workspace = await connectWorkspace(emu.url, { redirectUri: `${APP}/connect/callback` });
    await queueRevocations(
      db.prisma,
      emulatorSettings(emu.url),
      [{ token: workspace.refreshToken, hint: "refresh_token" }],
      { keyring },
    );
    const row = await db.prisma.tokenRevocation.findFirstOrThrow();
    expect(row.sealed).not.toContain(workspace.refreshToken);
    expect(row.sealed).not.toContain("sandbox-client-secret");

    await fault({ path: "/oauth/revoke", status: 503, times: 1 });
    const t0 = new Date();
    expect(await drainRevocations(db.prisma, { keyring, now: t0 })).toEqual({ revoked: 0, retrying: 1, gaveUp: 0 });
    const waiting = await db.prisma.tokenRevocation.findFirstOrThrow();
    expect(waiting).toMatchObject({ attempts: 1, lastError: "server_error" });
    expect(waiting.runAt.getTime()).toBeGreaterThan(t0.getTime());
    expect(await drainRevocations(db.prisma, { keyring, now: t0 })).toEqual({ revoked: 0, retrying: 0, gaveUp: 0 }); // not due yet

    expect(await drainRevocations(db.prisma, { keyring, now: new Date(waiting.runAt.getTime() + 1) })).toMatchObject({
      revoked: 1,
    });
    expect(await db.prisma.tokenRevocation.count()).toBe(0);
    expect(await stillValid(workspace.refreshToken)).toBe(false);
  });

  it("gives up after its attempts, and never hands one row to two drains at once", async () => {
    await queueRevocations(db.prisma, emulatorSettings(emu.url), [{ token: "t", hint: "access_token" }], { keyring });
    let calls = 0;
    const failing = async () => {
      calls += 1;
      return { ok: false as const, kind: "network_error" as const, retryable: true, message: "down" };
    };
    let now = new Date();
    const both = await Promise.all([
      drainRevocations(db.prisma, { keyring, now, revoke: failing }),
      drainRevocations(db.prisma, { keyring, now, revoke: failing }),
    ]);
    expect(calls).toBe(1);
    expect(both.map((r) => r.retrying).sort()).toEqual([0, 1]);
    for (let i = 1; i < MAX_ATTEMPTS; i++) {
      now = (await db.prisma.tokenRevocation.findFirstOrThrow()).runAt;
      await drainRevocations(db.prisma, { keyring, now, revoke: failing });
    }
    expect(calls).toBe(MAX_ATTEMPTS);
    expect(await db.prisma.tokenRevocation.count()).toBe(0);
  });
});

describe("the worker", () => {
  it("drains the outbox on its housekeeping timer, with no job to run", async () => {
    const workspace = await connectWorkspace(emu.url, { redirectUri: `${APP}/connect/callback` });
    await queueRevocations(db.prisma, emulatorSettings(emu.url), [
      { token: workspace.refreshToken, hint: "refresh_token" },
    ]);
    const unused = () => Promise.reject(new Error("no imports in this test"));
    const worker = startWorker(
      {
        prisma: db.prisma,
        loadSettings: async () => null,
        grantStore: () => {
          throw new Error("unused");
        },
        importOrder: unused,
        importShipment: unused,
      },
      { periodic: [housekeepingTask(db.prisma, { everyMs: 20 })], pollMs: 20 },
    );
    try {
      for (let i = 0; i < 100 && (await db.prisma.tokenRevocation.count()) > 0; i++)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      await worker.stop();
    }
    expect(await db.prisma.tokenRevocation.count()).toBe(0);
    expect(await stillValid(workspace.refreshToken)).toBe(false);
  });
});

describe("tokens the connect flow lets go of", () => {
  it("an abandoned connection's pending tokens are revoked by the worker once its state expires", async () => {
    const t0 = new Date();
    await exchanged("801", t0);
    const refresh = await pendingRefreshToken("801");
    expect((await runHousekeeping(db.prisma, { keyring, now: new Date(t0.getTime() + 60_000) })).abandoned).toBe(0); // still in time
    const later = new Date(t0.getTime() + STATE_TTL_MS + 1);
    const report = await runHousekeeping(db.prisma, { keyring, now: later });
    expect(report).toMatchObject({ abandoned: 1, revocations: { revoked: 1 }, errors: [] });
    expect(
      await db.prisma.oAuthState.count({ where: { shop: SHOP, customerId: "801", pendingTokensEnc: { not: null } } }),
    ).toBe(0);
    expect(await stillValid(refresh)).toBe(false);
    // The start of another connection a day later deletes old states, but never one still holding tokens.
    await db.prisma.oAuthState.updateMany({
      where: { customerId: "801" },
      data: { pendingTokensEnc: "enc:v1:r1:still-held" },
    });
    await startConnect(
      db.prisma,
      { shop: SHOP, customerId: "802" },
      { appUrl: APP, keyring, now: new Date(t0.getTime() + 2 * 86_400_000) },
    );
    expect(await db.prisma.oAuthState.count({ where: { customerId: "801" } })).toBe(1);
    await db.prisma.oAuthState.deleteMany();
  });

  it("pending tokens are bound to the origins that issued them: completed, revoked and swept only there, never without a binding", async () => {
    const t0 = new Date();
    const completion = await exchanged("810", t0);
    const row = await db.prisma.oAuthState.findFirstOrThrow({ where: { shop: SHOP, customerId: "810" } });
    expect(row.boundOrigins).toBe(serviceOrigins(emulatorSettings(emu.url)));
    for (const boundOrigins of [
      "auth=https://old.example base=https://old.example sandbox=https://old.example",
      null,
    ]) {
      // Issued by another service than the one configured now (or by no known one).
      await db.prisma.oAuthState.update({
        where: { state: row.state },
        data: { boundOrigins, pendingTokensEnc: row.pendingTokensEnc, expiresAt: row.expiresAt },
      });
      const result = await completeConnect(
        db.prisma,
        { shop: SHOP, customerId: "810", url: completion, prefix: "/apps/workspace" },
        { keyring, now: t0 },
      );
      expect(result).toMatchObject({ kind: "redirect" });
      expect(JSON.stringify(result)).toContain("failed");
      expect(await db.prisma.customerGrant.count({ where: { customerId: "810" } })).toBe(0);
      // Abandoned: the sweep erases them and sends them nowhere (no revocation at today's service).
      await db.prisma.oAuthState.update({
        where: { state: row.state },
        data: { boundOrigins, pendingTokensEnc: row.pendingTokensEnc },
      });
      const report = await runHousekeeping(db.prisma, { keyring, now: new Date(t0.getTime() + STATE_TTL_MS + 1) });
      expect(report.errors).toEqual([]);
      expect(await db.prisma.tokenRevocation.count()).toBe(0);
      expect(await db.prisma.oAuthState.count({ where: { customerId: "810", pendingTokensEnc: { not: null } } })).toBe(
        0,
      );
    }
    await db.prisma.oAuthState.deleteMany();
  });

  it("tokens orphaned by a failed grant save are queued and revoked; the shopper gets 'failed', not an error", async () => {
    const completion = await exchanged("803");
    const refresh = await pendingRefreshToken("803");
    const broken = new Proxy(db.prisma, {
      get(target, property) {
        if (property === "customerGrant") {
          return new Proxy(target.customerGrant, {
            get: (grants, name) =>
              name === "upsert" ? () => Promise.reject(new Error("database went away")) : Reflect.get(grants, name),
          });
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as PrismaClient;
    const result = await completeConnect(
      broken,
      { shop: SHOP, customerId: "803", url: completion, prefix: "/apps/workspace" },
      { keyring },
    );
    expect(result).toMatchObject({ kind: "redirect", result: "failed" });
    expect(await db.prisma.customerGrant.count({ where: { customerId: "803" } })).toBe(0);
    expect(await db.prisma.tokenRevocation.count()).toBe(1);
    expect(await drainRevocations(db.prisma, { keyring })).toMatchObject({ revoked: 1 });
    expect(await stillValid(refresh)).toBe(false);
  });

  it("a disconnect while the service is down deletes here at once and revokes later", async () => {
    const workspace = await connectWorkspace(emu.url, { redirectUri: `${APP}/connect/callback` });
    const { id } = await storeGrant(
      db.prisma,
      {
        shop: SHOP,
        customerId: "804",
        workspaceId: workspace.workspaceId,
        tokens: workspace.tokens,
        boundOrigins: serviceOrigins(emulatorSettings(emu.url)),
      },
      { keyring },
    );
    await fault({ path: "/oauth/revoke", status: 503, times: 1 });
    const settings = emulatorSettings(emu.url);
    const result = await disconnectGrant(db.prisma, SHOP, id, {
      settings,
      keyring,
      deps: { retry: { maxAttempts: 1 } },
    });
    expect(result).toMatchObject({ ok: true, revoked: false, message: expect.stringContaining("keeps trying") });
    expect(await db.prisma.customerGrant.count({ where: { id } })).toBe(0);
    expect(await drainRevocations(db.prisma, { keyring })).toMatchObject({ revoked: 1 });
    expect(await stillValid(workspace.refreshToken)).toBe(false);
  });
});
