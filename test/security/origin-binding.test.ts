// Tokens never go to a server that did not issue them: a customer connected at the emulator, then the merchant
// points the settings at another server (a second local HTTP server that counts what it receives).
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { disconnectGrant, storeGrant } from "~/connections/grant-lifecycle.server";
import { grantStoreFor } from "~/connections/prisma-grant-store.server";
import { loadServiceSettings } from "~/connections/settings-loader.server";
import { saveSettings } from "~/connections/settings-store.server";
import { importOrder, ORIGIN_CHANGED_REASON, serviceOrigins } from "~/service/client.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { mintTokens, settingsFor, SHOP } from "../sync/support";
import { startTestEmulator } from "../helpers/emulator";

const CUSTOMER = "7500000001";
const ORDER = {
  external_order_id: "order-origin-1",
  ordered_at: "2026-11-01T10:00:00Z",
  lines: [{ external_line_id: "line-1", title: "Blue mug", quantity: 1 }],
};

let db: TestDatabase;
let emulator: RunningEmulator;
let other: Server;
let otherUrl: string;
const received: string[] = [];
let tokens: { access_token: string; refresh_token: string };

beforeAll(async () => {
  [db, emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
  other = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;

  const settings = settingsFor(emulator);
  expect((await saveSettings(db.prisma, SHOP, { ...settings })).ok).toBe(true);
  tokens = mintTokens(emulator, "ws-origin");
  await storeGrant(db.prisma, {
    shop: SHOP,
    customerId: CUSTOMER,
    workspaceId: "ws-origin",
    tokens: {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      accessTokenExpiresAt: new Date(Date.now() + 3600_000),
      scopes: ["orders:write"],
    },
    boundOrigins: serviceOrigins(settings),
  });
});
afterAll(async () => {
  await new Promise((resolve) => other.close(resolve));
  await emulator?.close();
  await db?.close();
});

const moved = () => ({ ...settingsFor(emulator), baseUrl: otherUrl, sandboxBaseUrl: otherUrl, authUrl: otherUrl });
const grant = () =>
  db.prisma.customerGrant.findUniqueOrThrow({ where: { shop_customerId: { shop: SHOP, customerId: CUSTOMER } } });
const store = () => grantStoreFor(db.prisma, { shop: SHOP, customerId: CUSTOMER });

describe("after the service's origin changes", () => {
  it("works while the settings name the issuing service (the control)", async () => {
    const outcome = await importOrder((await loadServiceSettings(db.prisma, SHOP))!, store(), ORDER, {
      idempotencyKey: "origin-control",
    });
    expect(outcome).toMatchObject({ ok: true });
  });

  it("the merchant is told before saving, and nothing changes until they confirm", async () => {
    const first = await saveSettings(db.prisma, SHOP, moved());
    expect(first).toMatchObject({ ok: false, originChange: { grants: 1 } });
    expect(first.ok ? "" : first.originChange?.message).toMatch(/1 connected customer will have to reconnect/);
    expect((await loadServiceSettings(db.prisma, SHOP))!.baseUrl).toBe(emulator.url);

    const confirmed = await saveSettings(db.prisma, SHOP, { ...moved(), confirmOriginChange: "true" });
    expect(confirmed).toMatchObject({ ok: true, grantsToReconnect: 1 });
    expect(await grant()).toMatchObject({ status: "needs_reconnect", statusReason: ORIGIN_CHANGED_REASON });
  });

  it("the new server receives no token: not for imports, refreshes or revocation", async () => {
    const settings = (await loadServiceSettings(db.prisma, SHOP))!;
    expect(settings.authUrl).toBe(otherUrl);
    // Even if the grant were marked active again (a race, a hand edit), the client itself refuses to send it.
    await db.prisma.customerGrant.updateMany({ where: { shop: SHOP }, data: { status: "active", statusReason: null } });
    const imported = await importOrder(settings, store(), ORDER, { idempotencyKey: "origin-moved" });
    expect(imported).toMatchObject({ ok: false, kind: "reconnect_required" });
    expect(await grant()).toMatchObject({ status: "needs_reconnect", statusReason: ORIGIN_CHANGED_REASON });

    // An expired access token would be refreshed at the auth URL: not at this one.
    await db.prisma.customerGrant.updateMany({
      where: { shop: SHOP },
      data: { status: "active", accessTokenExpiresAt: new Date(Date.now() - 1000) },
    });
    expect(await importOrder(settings, store(), ORDER, { idempotencyKey: "origin-refresh" })).toMatchObject({
      ok: false,
      kind: "reconnect_required",
    });

    const row = await grant();
    const disconnected = await disconnectGrant(db.prisma, SHOP, row.id, { settings });
    expect(disconnected).toMatchObject({ ok: true, revoked: false });
    expect(disconnected.ok && disconnected.message).toMatch(/service address changed/);

    expect(received).toEqual([]);
    const everything = received.join("\n");
    expect(everything).not.toContain(tokens.access_token);
    expect(everything).not.toContain(tokens.refresh_token);
  });
});

describe("grants from before the binding", () => {
  it("are bound by the migration to the origins the app computes for the settings of the time", async () => {
    const sql = readFileSync(
      path.resolve(__dirname, "../../prisma/migrations/20261123110000_hardening/migration.sql"),
      "utf8",
    );
    const backfill = sql.slice(sql.indexOf("UPDATE"));
    const cases = [
      {
        authUrl: "https://Auth.Example.COM:443/oauth/",
        baseUrl: "https://api.example.com/v1",
        sandboxBaseUrl: "http://127.0.0.1:8787",
      },
      {
        authUrl: "https://auth.example.com:8443",
        baseUrl: "http://localhost:80/",
        sandboxBaseUrl: "https://sandbox.example.com",
      },
    ];
    for (const [i, urls] of cases.entries()) {
      const shop = `legacy-${i}.myshopify.com`;
      await db.prisma.shopSettings.create({ data: { shop, ...urls } });
      await db.prisma.customerGrant.create({
        data: { shop, customerId: "1", workspaceId: "ws", scopes: "", accessTokenEnc: "x" },
      });
    }
    await db.prisma.$executeRawUnsafe(backfill);
    for (const [i, urls] of cases.entries()) {
      const row = await db.prisma.customerGrant.findFirstOrThrow({ where: { shop: `legacy-${i}.myshopify.com` } });
      expect(row.boundOrigins).toBe(serviceOrigins(urls));
    }
  });
});
