// The Prisma GrantStore the sync engine uses: tokens encrypted at rest, compare-and-set on tokenVersion, needs_reconnect.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaGrantStore, grantStoreFor } from "~/connections/prisma-grant-store.server";
import { storeGrant } from "~/connections/grant-lifecycle.server";
import { keyIdOf, parseKeyring } from "~/crypto/secret-box.server";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";

const keyring = parseKeyring(`gs:${randomBytes(32).toString("base64")}`);
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

const SHOP = "grants.myshopify.com";

describe("Prisma grant store", () => {
  it("stores tokens encrypted and loads them decrypted", async () => {
    await storeGrant(
      db.prisma,
      {
        shop: SHOP,
        customerId: "101",
        customerName: "Ada Lovelace",
        workspaceId: "ws-acme",
        tokens: {
          accessToken: "at-1",
          refreshToken: "rt-1",
          accessTokenExpiresAt: new Date("2030-01-01T00:00:00Z"),
          scopes: ["orders:write"],
        },
      },
      { keyring },
    );
    const row = await db.prisma.customerGrant.findUniqueOrThrow({
      where: { shop_customerId: { shop: SHOP, customerId: "101" } },
    });
    expect(row.accessTokenEnc).not.toContain("at-1");
    expect(keyIdOf(row.accessTokenEnc)).toBe("gs");
    expect(keyIdOf(row.refreshTokenEnc!)).toBe("gs");

    const store = createPrismaGrantStore(db.prisma, { shop: SHOP, customerId: "101" }, { keyring });
    expect(await store.load()).toMatchObject({
      accessToken: "at-1",
      refreshToken: "rt-1",
      accessTokenExpiresAt: new Date("2030-01-01T00:00:00Z"),
      scopes: ["orders:write"],
      workspaceId: "ws-acme",
      status: "active",
      tokenVersion: 0,
    });
  });

  it("saveRefreshed is a compare-and-set on tokenVersion", async () => {
    const store = createPrismaGrantStore(db.prisma, { shop: SHOP, customerId: "101" }, { keyring });
    const tokens = { accessToken: "at-2", refreshToken: "rt-2", accessTokenExpiresAt: null, scopes: ["orders:write"] };
    const [a, b] = await Promise.all([
      store.saveRefreshed(0, tokens),
      store.saveRefreshed(0, { ...tokens, accessToken: "at-x" }),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1); // exactly one writer wins
    const now = await store.load();
    expect(now?.tokenVersion).toBe(1);
    expect(await store.saveRefreshed(0, tokens)).toBeNull(); // stale version: nothing written
    expect((await store.load())?.tokenVersion).toBe(1);
  });

  it("markNeedsReconnect sets status and reason only at the expected version", async () => {
    const store = createPrismaGrantStore(db.prisma, { shop: SHOP, customerId: "101" }, { keyring });
    expect(await store.markNeedsReconnect("stale", 0)).toBe(false);
    expect(await store.markNeedsReconnect("the service no longer accepts the saved authorization", 1)).toBe(true);
    expect(await store.load()).toMatchObject({
      status: "needs_reconnect",
      statusReason: "the service no longer accepts the saved authorization",
    });
    await store.markUsed!(new Date("2026-11-22T10:00:00Z"));
    const row = await db.prisma.customerGrant.findFirstOrThrow({ where: { shop: SHOP, customerId: "101" } });
    expect(row.lastUsedAt?.toISOString()).toBe("2026-11-22T10:00:00.000Z");
    // A refresh that succeeds later makes it active again.
    expect(
      await store.saveRefreshed(1, {
        accessToken: "at-3",
        refreshToken: "rt-3",
        accessTokenExpiresAt: null,
        scopes: ["orders:write"],
      }),
    ).toMatchObject({
      status: "active",
      statusReason: null,
      tokenVersion: 2,
    });
  });

  it("writes 'last used' at most once a minute per grant (each import used to write it)", async () => {
    const store = createPrismaGrantStore(db.prisma, { shop: SHOP, customerId: "101" }, { keyring });
    const lastUsed = async () =>
      (
        await db.prisma.customerGrant.findFirstOrThrow({ where: { shop: SHOP, customerId: "101" } })
      ).lastUsedAt?.toISOString();
    await store.markUsed!(new Date("2026-11-23T10:00:00Z"));
    expect(await lastUsed()).toBe("2026-11-23T10:00:00.000Z");
    await store.markUsed!(new Date("2026-11-23T10:00:59Z"));
    expect(await lastUsed()).toBe("2026-11-23T10:00:00.000Z");
    await store.markUsed!(new Date("2026-11-23T10:01:00Z"));
    expect(await lastUsed()).toBe("2026-11-23T10:01:00.000Z");
  });

  it("is scoped to one shop and customer; grantStoreFor shares one store per grant", async () => {
    expect(
      await createPrismaGrantStore(db.prisma, { shop: "other.myshopify.com", customerId: "101" }, { keyring }).load(),
    ).toBeNull();
    const a = grantStoreFor(db.prisma, { shop: SHOP, customerId: "101" }, { keyring });
    expect(grantStoreFor(db.prisma, { shop: SHOP, customerId: "101" }, { keyring })).toBe(a);
    expect(grantStoreFor(db.prisma, { shop: SHOP, customerId: "102" }, { keyring })).not.toBe(a);
  });

  it("reconnecting replaces the tokens, bumps the version and hands back the old refresh token", async () => {
    const result = await storeGrant(
      db.prisma,
      {
        shop: SHOP,
        customerId: "101",
        workspaceId: "ws-globex",
        tokens: {
          accessToken: "at-9",
          refreshToken: "rt-9",
          accessTokenExpiresAt: null,
          scopes: ["orders:write", "shipments:write"],
        },
      },
      { keyring },
    );
    expect(result.previousRefreshToken).toBe("rt-3");
    const loaded = await createPrismaGrantStore(db.prisma, { shop: SHOP, customerId: "101" }, { keyring }).load();
    expect(loaded).toMatchObject({ accessToken: "at-9", workspaceId: "ws-globex", status: "active", tokenVersion: 3 });
    const row = await db.prisma.customerGrant.findFirstOrThrow({ where: { shop: SHOP, customerId: "101" } });
    expect(row.customerName).toBe("Ada Lovelace"); // kept when the new attempt knew no name
  });

  it.runIf(usingPostgres())(
    "withRefreshLock serialises refreshes of one grant across connections (PostgreSQL)",
    async () => {
      const a = createPrismaGrantStore(db.prisma, { shop: SHOP, customerId: "101" }, { keyring, advisoryLock: true });
      const b = createPrismaGrantStore(db.prisma, { shop: SHOP, customerId: "101" }, { keyring, advisoryLock: true });
      const other = createPrismaGrantStore(
        db.prisma,
        { shop: SHOP, customerId: "999" },
        { keyring, advisoryLock: true },
      );
      const events: string[] = [];
      const hold = (name: string, ms: number) => async () => {
        events.push(`${name}:start`);
        // The store's own writes inside the lock are not blocked by it.
        await a.markUsed!(new Date());
        await new Promise((r) => setTimeout(r, ms));
        events.push(`${name}:end`);
        return name;
      };
      const results = await Promise.all([a.withRefreshLock!(hold("a", 300)), b.withRefreshLock!(hold("b", 10))]);
      expect(results).toEqual(["a", "b"]);
      const first = events[0].split(":")[0];
      expect(events[1]).toBe(`${first}:end`); // no interleaving for the same grant
      // Another grant's lock is independent.
      const t = Date.now();
      await Promise.all([a.withRefreshLock!(hold("c", 300)), other.withRefreshLock!(hold("d", 10))]);
      expect(Date.now() - t).toBeLessThan(1500);
    },
  );
});
