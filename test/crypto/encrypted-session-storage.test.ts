import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { Session } from "@shopify/shopify-api";
import { PrismaSessionStorage } from "@shopify/shopify-app-session-storage-prisma";
import { EncryptedSessionStorage } from "~/crypto/encrypted-session-storage.server";
import { rotateEncryptionKeys } from "~/crypto/rotate-keys.server";
import { keyIdOf, parseKeyring } from "~/crypto/secret-box.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";

const OLD = `old:${randomBytes(32).toString("base64")}`;
const NEW = `new:${randomBytes(32).toString("base64")}`;
const SHOP = "enc-shop.myshopify.com";

describe("Shopify sessions encrypted at rest", () => {
  let db: TestDatabase;
  let ring = parseKeyring(OLD);
  let storage: EncryptedSessionStorage;

  beforeAll(async () => {
    db = await createTestDatabase();
    storage = new EncryptedSessionStorage(new PrismaSessionStorage(db.prisma), () => ring);
  });
  afterAll(() => db?.close());

  it("stores the offline access token encrypted and loads it back in plain text", async () => {
    const session = new Session({
      id: `offline_${SHOP}`,
      shop: SHOP,
      state: "",
      isOnline: false,
      accessToken: "shpat_secret_1",
    });
    session.refreshToken = "shprt_secret_1";
    expect(await storage.storeSession(session)).toBe(true);

    const row = await db.prisma.session.findUniqueOrThrow({ where: { id: `offline_${SHOP}` } });
    expect(row.accessToken).not.toContain("shpat_secret_1");
    expect(keyIdOf(row.accessToken)).toBe("old");
    expect(keyIdOf(row.refreshToken!)).toBe("old");

    const loaded = await storage.loadSession(`offline_${SHOP}`);
    expect(loaded?.accessToken).toBe("shpat_secret_1");
    expect(loaded?.refreshToken).toBe("shprt_secret_1");
    expect((await storage.findSessionsByShop(SHOP)).map((s) => s.accessToken)).toEqual(["shpat_secret_1"]);
  });

  it("still loads a session stored in plain text before encryption, and the rotation command encrypts it", async () => {
    await db.prisma.session.create({
      data: {
        id: "offline_legacy.myshopify.com",
        shop: "legacy.myshopify.com",
        state: "",
        accessToken: "shpat_legacy",
      },
    });
    expect((await storage.loadSession("offline_legacy.myshopify.com"))?.accessToken).toBe("shpat_legacy");

    ring = parseKeyring(`${NEW},${OLD}`);
    const report = await rotateEncryptionKeys(db.prisma, ring);
    expect(report.remaining).toBe(0);
    expect(report.reencrypted["session.accessToken"]).toBe(2);
    expect(report.reencrypted["session.refreshToken"]).toBe(1);
    for (const row of await db.prisma.session.findMany()) expect(keyIdOf(row.accessToken)).toBe("new");

    ring = parseKeyring(NEW); // the old key can go
    expect((await storage.loadSession("offline_legacy.myshopify.com"))?.accessToken).toBe("shpat_legacy");
    expect((await storage.loadSession(`offline_${SHOP}`))?.accessToken).toBe("shpat_secret_1");
  });
});
