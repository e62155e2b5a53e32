// Encryption at rest: AES-256-GCM round trip, key id stored with each value, tamper detection, and the rotation
// command (module and the real `scripts/rotate-encryption-key.ts` in a child process on a PGlite data dir).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/connect.server";
import { countStale, rotateEncryptionKeys } from "~/crypto/rotate-keys.server";
import {
  decryptSecret,
  encryptSecret,
  keyIdOf,
  parseKeyring,
  SecretBoxError,
} from "~/crypto/secret-box.server";
import { createPostgresDatabase, createTestDatabase, type TestDatabase } from "../helpers/db";

const key = () => randomBytes(32).toString("base64");
const OLD = `old:${key()}`;
const NEW = `new:${key()}`;

describe("secret box", () => {
  const ring = parseKeyring(OLD);

  it("round-trips and stores the key id in the ciphertext", () => {
    const value = encryptSecret("sk_live_very_secret", ring);
    expect(value).toMatch(/^enc:v1:old:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(value).not.toContain("very_secret");
    expect(keyIdOf(value)).toBe("old");
    expect(decryptSecret(value, ring)).toBe("sk_live_very_secret");
    // A fresh IV every time: equal plaintexts do not give equal ciphertexts.
    expect(encryptSecret("sk_live_very_secret", ring)).not.toBe(value);
    expect(decryptSecret(encryptSecret("", ring), ring)).toBe("");
    expect(decryptSecret(encryptSecret("ünïcødé ✓", ring), ring)).toBe("ünïcødé ✓");
  });

  it("detects tampering with the ciphertext, the tag, the IV or the key id", () => {
    const value = encryptSecret("refresh-token-123", ring);
    const [, , id, iv, tag, ct] = value.split(":");
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, "base64");
      bytes[0] ^= 1;
      return bytes.toString("base64");
    };
    const variants = [
      `enc:v1:${id}:${iv}:${tag}:${flip(ct)}`,
      `enc:v1:${id}:${iv}:${flip(tag)}:${ct}`,
      `enc:v1:${id}:${flip(iv)}:${tag}:${ct}`,
    ];
    for (const v of variants) expect(() => decryptSecret(v, ring)).toThrow(/failed authentication/);
    // Relabelled to another listed key: the key id is authenticated data, so this fails too.
    const two = parseKeyring(`${OLD},other:${OLD.split(":")[1]}`);
    expect(() => decryptSecret(`enc:v1:other:${iv}:${tag}:${ct}`, two)).toThrow(SecretBoxError);
    expect(() => decryptSecret("plain-text", ring)).toThrow(/not an encrypted value/);
    expect(() => decryptSecret("enc:v1:old:xx", ring)).toThrow(/malformed/);
  });

  it("names a missing key without revealing anything", () => {
    const value = encryptSecret("s3cr3t", ring);
    let message = "";
    try {
      decryptSecret(value, parseKeyring(NEW));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/key "old".*no longer lists/);
    expect(message).not.toContain("s3cr3t");
    expect(message).not.toContain(OLD.split(":")[1]);
  });

  it("rejects bad key lists clearly", () => {
    expect(() => parseKeyring("k:" + Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes/);
    expect(() => parseKeyring(`${OLD},${OLD}`)).toThrow(/listed twice/);
    expect(() => parseKeyring("")).toThrow(/empty/);
    expect(parseKeyring(`${NEW},${OLD}`).currentId).toBe("new");
  });
});

async function seed(prisma: TestDatabase["prisma"], keys: string) {
  const ring = parseKeyring(keys);
  await prisma.shopSettings.create({
    data: {
      shop: "a.myshopify.com",
      clientId: "c",
      authUrl: "http://127.0.0.1:1",
      clientSecretEnc: encryptSecret("client-secret-A", ring),
      signingSecretEnc: encryptSecret("signing-secret-A", ring),
    },
  });
  await prisma.customerGrant.create({
    data: {
      shop: "a.myshopify.com",
      customerId: "1",
      workspaceId: "ws",
      scopes: "orders:write",
      accessTokenEnc: encryptSecret("access-1", ring),
      refreshTokenEnc: encryptSecret("refresh-1", ring),
    },
  });
  await prisma.oAuthState.create({
    data: {
      state: "s".repeat(43),
      shop: "a.myshopify.com",
      customerId: "1",
      codeVerifierEnc: encryptSecret("verifier-1", ring),
      redirectUri: "http://x/connect/callback",
      expiresAt: new Date(Date.now() + 60_000),
    },
  });
}

async function allCiphertexts(prisma: TestDatabase["prisma"]) {
  const s = await prisma.shopSettings.findMany();
  const g = await prisma.customerGrant.findMany();
  const o = await prisma.oAuthState.findMany();
  return [
    ...s.flatMap((r) => [r.clientSecretEnc!, r.signingSecretEnc!]),
    ...g.flatMap((r) => [r.accessTokenEnc, r.refreshTokenEnc!]),
    ...o.map((r) => r.codeVerifierEnc),
  ];
}

describe("key rotation", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.close());

  it("re-encrypts everything under the new key; old values decrypt while the old key is listed", async () => {
    await seed(db.prisma, OLD);
    const before = await allCiphertexts(db.prisma);
    expect(before.every((v) => keyIdOf(v) === "old")).toBe(true);

    // Both keys listed, new first: old ciphertexts still decrypt before the command runs.
    const both = parseKeyring(`${NEW},${OLD}`);
    expect(before.map((v) => decryptSecret(v, both))).toContain("refresh-1");

    const report = await rotateEncryptionKeys(db.prisma, both);
    expect(report.remaining).toBe(0);
    expect(Object.values(report.reencrypted).reduce((a, b) => a + b, 0)).toBe(5);

    const after = await allCiphertexts(db.prisma);
    expect(after.every((v) => keyIdOf(v) === "new")).toBe(true);
    const onlyNew = parseKeyring(NEW);
    expect(after.map((v) => decryptSecret(v, onlyNew)).sort()).toEqual(
      ["access-1", "client-secret-A", "refresh-1", "signing-secret-A", "verifier-1"].sort(),
    );
    // Running it again changes nothing.
    const again = await rotateEncryptionKeys(db.prisma, both);
    expect(Object.values(again.reencrypted).every((n) => n === 0)).toBe(true);
  });

  it("tokens pending on a connection attempt are re-encrypted too", async () => {
    const ring = parseKeyring(OLD);
    await db.prisma.oAuthState.create({
      data: {
        state: "p".repeat(43),
        shop: "a.myshopify.com",
        customerId: "2",
        codeVerifierEnc: encryptSecret("verifier-2", ring),
        pendingTokensEnc: encryptSecret('{"accessToken":"pending-access"}', ring),
        redirectUri: "http://x/connect/callback",
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    const both = parseKeyring(`${NEW},${OLD}`);
    expect(await countStale(db.prisma, both)).toBe(2);
    const report = await rotateEncryptionKeys(db.prisma, both);
    expect(report.reencrypted["oAuthState.pendingTokensEnc"]).toBe(1);
    expect(report.remaining).toBe(0);
    const row = await db.prisma.oAuthState.findUniqueOrThrow({ where: { state: "p".repeat(43) } });
    expect(keyIdOf(row.pendingTokensEnc!)).toBe("new");
    expect(decryptSecret(row.pendingTokensEnc!, parseKeyring(NEW))).toBe('{"accessToken":"pending-access"}');
  });

  it("`npm run rotate-key` (the script) re-encrypts a real data directory", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rotate-key-"));
    const dataDir = path.join(dir, "pglite");
    try {
      const first = openDatabase({ dataDir });
      await first.ready;
      await seed(first.prisma, OLD);
      await first.close();

      const tsx = path.resolve("node_modules/.bin/tsx");
      const { stdout } = await promisify(execFile)(tsx, ["scripts/rotate-encryption-key.ts"], {
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: "",
          PGLITE_DATA_DIR: dataDir,
          SHOPIFY_API_KEY: "k",
          SHOPIFY_API_SECRET: "s",
          SHOPIFY_APP_URL: "https://app.example.com",
          ENCRYPTION_KEYS: `${NEW},${OLD}`,
        },
        timeout: 120_000,
      });
      expect(stdout).toContain("re-encrypted 5 value(s)");
      expect(stdout).not.toMatch(/client-secret-A|refresh-1|access-1/);

      const second = openDatabase({ dataDir });
      await second.ready;
      try {
        const after = await allCiphertexts(second.prisma);
        expect(after).toHaveLength(5);
        expect(after.every((v) => keyIdOf(v) === "new")).toBe(true);
        expect(decryptSecret(after[0], parseKeyring(NEW))).toBe("client-secret-A");
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))("`npm run rotate-key` on PostgreSQL", async () => {
    const pgdb = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    try {
      await seed(pgdb.prisma, OLD);
      const tsx = path.resolve("node_modules/.bin/tsx");
      const { stdout } = await promisify(execFile)(tsx, ["scripts/rotate-encryption-key.ts"], {
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: pgdb.url,
          SHOPIFY_API_KEY: "k",
          SHOPIFY_API_SECRET: "s",
          SHOPIFY_APP_URL: "https://app.example.com",
          ENCRYPTION_KEYS: `${NEW},${OLD}`,
        },
        timeout: 120_000,
      });
      expect(stdout).toContain("re-encrypted 5 value(s)");
      const after = await allCiphertexts(pgdb.prisma);
      expect(after.every((v) => keyIdOf(v) === "new")).toBe(true);
    } finally {
      await pgdb.close();
    }
  }, 180_000);
});
