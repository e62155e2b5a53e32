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
import { COLUMNS, countStale, rotateEncryptionKeys } from "~/crypto/rotate-keys.server";
import {
  bindings,
  formatOf,
  keyIdOf,
  openFor,
  parseKeyring,
  SEALED_COLUMNS,
  sealFor,
  SecretBoxError,
  type Binding,
} from "~/crypto/secret-box.server";
import { createPostgresDatabase, createTestDatabase, type TestDatabase } from "../helpers/db";
import { legacySeal } from "../helpers/legacy-seal";

const key = () => randomBytes(32).toString("base64");
const OLD = `old:${key()}`;
const NEW = `new:${key()}`;
const SHOP_A = "a.myshopify.com";
const here: Binding = bindings.customerGrant({ shop: SHOP_A, customerId: "1" }, "accessTokenEnc");

describe("secret box", () => {
  const ring = parseKeyring(OLD);

  it("round-trips and stores the format and key id in the ciphertext", () => {
    const value = sealFor(here, "sk_live_very_secret", ring);
    expect(value).toMatch(/^enc:v2:old:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(value).not.toContain("very_secret");
    expect(value).not.toContain(SHOP_A); // the binding is authenticated, not stored
    expect(formatOf(value)).toBe("v2");
    expect(keyIdOf(value)).toBe("old");
    expect(openFor(here, value, ring)).toBe("sk_live_very_secret");
    // A fresh IV every time: equal plaintexts do not give equal ciphertexts.
    expect(sealFor(here, "sk_live_very_secret", ring)).not.toBe(value);
    expect(openFor(here, sealFor(here, "", ring), ring)).toBe("");
    expect(openFor(here, sealFor(here, "ünïcødé ✓", ring), ring)).toBe("ünïcødé ✓");
  });

  it("detects tampering with the ciphertext, the tag, the IV or the key id", () => {
    const value = sealFor(here, "refresh-token-123", ring);
    const [, , id, iv, tag, ct] = value.split(":");
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, "base64");
      bytes[0] ^= 1;
      return bytes.toString("base64");
    };
    const variants = [
      `enc:v2:${id}:${iv}:${tag}:${flip(ct)}`,
      `enc:v2:${id}:${iv}:${flip(tag)}:${ct}`,
      `enc:v2:${id}:${flip(iv)}:${tag}:${ct}`,
      // Relabelled as v1 (whose additional data is the key id alone): the format is authenticated too.
      `enc:v1:${id}:${iv}:${tag}:${ct}`,
    ];
    for (const v of variants) expect(() => openFor(here, v, ring)).toThrow(/failed authentication/);
    // Relabelled to another listed key: the key id is authenticated data, so this fails too.
    const two = parseKeyring(`${OLD},other:${OLD.split(":")[1]}`);
    expect(() => openFor(here, `enc:v2:other:${iv}:${tag}:${ct}`, two)).toThrow(SecretBoxError);
    expect(() => openFor(here, "plain-text", ring)).toThrow(/not an encrypted value/);
    expect(() => openFor(here, "enc:v2:old:xx", ring)).toThrow(/malformed/);
  });

  it("a value opens only in the row, column, table and shop it was sealed for", () => {
    const value = sealFor(here, "access-token-of-customer-1", ring);
    const elsewhere: Binding[] = [
      bindings.customerGrant({ shop: SHOP_A, customerId: "2" }, "accessTokenEnc"), // another customer, same shop
      bindings.customerGrant({ shop: "b.myshopify.com", customerId: "1" }, "accessTokenEnc"), // same customer id, another shop
      bindings.customerGrant({ shop: SHOP_A, customerId: "1" }, "refreshTokenEnc"), // another column of the same row
      bindings.oauthState({ shop: SHOP_A, state: "1" }, "pendingTokensEnc"), // another table
      bindings.session({ shop: SHOP_A, id: "1" }, "accessToken"),
      bindings.shopSettings(SHOP_A, "clientSecretEnc"),
      bindings.tokenRevocation("1"),
    ];
    for (const binding of elsewhere) {
      expect(() => openFor(binding, value, ring), `${binding.table}.${binding.column}`).toThrow(
        /failed authentication.*moved from another row/,
      );
    }
    // No separator games: parts are encoded unambiguously (a shop ending in the id's first characters is another row).
    const a = sealFor(bindings.oauthState({ shop: "x:y", state: "z" }, "codeVerifierEnc"), "v", ring);
    expect(() => openFor(bindings.oauthState({ shop: "x", state: "y:z" }, "codeVerifierEnc"), a, ring)).toThrow(
      SecretBoxError,
    );
    // Sealing or opening without a row key is refused, not bound to "nothing".
    expect(() => sealFor(bindings.tokenRevocation(""), "v", ring)).toThrow(/bound to its row/);
  });

  it("opens values written before row binding (v1), from any row: the compatibility the rotation removes", () => {
    const old = legacySeal("written-by-the-old-code", ring);
    expect(formatOf(old)).toBe("v1");
    expect(keyIdOf(old)).toBe("old");
    expect(openFor(here, old, ring)).toBe("written-by-the-old-code");
  });

  it("names a missing key without revealing anything", () => {
    const value = sealFor(here, "s3cr3t", ring);
    let message = "";
    try {
      openFor(here, value, parseKeyring(NEW));
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

  it("the rotation knows every encrypted column", () => {
    const sealed = Object.entries(SEALED_COLUMNS).flatMap(([table, columns]) => columns.map((c) => `${table}.${c}`));
    const rotated = COLUMNS.map((c) => {
      const b = c.bind({ shop: "s", state: "s", id: "s", customerId: "s" });
      expect(b.column).toBe(c.field);
      return `${b.table}.${b.column}`;
    });
    expect(rotated.sort()).toEqual(sealed.sort());
  });
});

// Rows as the old code wrote them: v1 values (key id only as additional data).
async function seed(prisma: TestDatabase["prisma"], keys: string) {
  const ring = parseKeyring(keys);
  await prisma.shopSettings.create({
    data: {
      shop: SHOP_A,
      clientId: "c",
      authUrl: "http://127.0.0.1:1",
      clientSecretEnc: legacySeal("client-secret-A", ring),
      signingSecretEnc: legacySeal("signing-secret-A", ring),
    },
  });
  await prisma.customerGrant.create({
    data: {
      shop: SHOP_A,
      customerId: "1",
      workspaceId: "ws",
      scopes: "orders:write",
      accessTokenEnc: legacySeal("access-1", ring),
      refreshTokenEnc: legacySeal("refresh-1", ring),
    },
  });
  await prisma.oAuthState.create({
    data: {
      state: "s".repeat(43),
      shop: SHOP_A,
      customerId: "1",
      codeVerifierEnc: legacySeal("verifier-1", ring),
      redirectUri: "http://x/connect/callback",
      expiresAt: new Date(Date.now() + 60_000),
    },
  });
}

/** Every seeded value with the binding of the row and column it sits in. */
async function allCiphertexts(prisma: TestDatabase["prisma"]): Promise<{ binding: Binding; value: string }[]> {
  const s = await prisma.shopSettings.findMany();
  const g = await prisma.customerGrant.findMany();
  const o = await prisma.oAuthState.findMany({ where: { state: "s".repeat(43) } });
  return [
    ...s.flatMap((r) => [
      { binding: bindings.shopSettings(r.shop, "clientSecretEnc"), value: r.clientSecretEnc! },
      { binding: bindings.shopSettings(r.shop, "signingSecretEnc"), value: r.signingSecretEnc! },
    ]),
    ...g.flatMap((r) => [
      { binding: bindings.customerGrant(r, "accessTokenEnc"), value: r.accessTokenEnc },
      { binding: bindings.customerGrant(r, "refreshTokenEnc"), value: r.refreshTokenEnc! },
    ]),
    ...o.map((r) => ({ binding: bindings.oauthState(r, "codeVerifierEnc"), value: r.codeVerifierEnc })),
  ];
}

const PLAINTEXTS = ["access-1", "client-secret-A", "refresh-1", "signing-secret-A", "verifier-1"].sort();
const openAll = (values: { binding: Binding; value: string }[], keys: string) =>
  values.map(({ binding, value }) => openFor(binding, value, parseKeyring(keys))).sort();

describe("key rotation", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.close());

  it("re-encrypts old-format rows under the new key, bound to their rows; they still open while the old key is listed", async () => {
    await seed(db.prisma, OLD);
    const before = await allCiphertexts(db.prisma);
    expect(before.every(({ value }) => formatOf(value) === "v1" && keyIdOf(value) === "old")).toBe(true);

    // Both keys listed, new first: the old code's ciphertexts still open before the command runs.
    const both = parseKeyring(`${NEW},${OLD}`);
    expect(openAll(before, `${NEW},${OLD}`)).toEqual(PLAINTEXTS);

    const report = await rotateEncryptionKeys(db.prisma, both);
    expect(report.remaining).toBe(0);
    expect(Object.values(report.reencrypted).reduce((a, b) => a + b, 0)).toBe(5);

    const after = await allCiphertexts(db.prisma);
    expect(after.every(({ value }) => formatOf(value) === "v2" && keyIdOf(value) === "new")).toBe(true);
    expect(openAll(after, NEW)).toEqual(PLAINTEXTS);
    // Now bound: the grant's access token no longer opens as its refresh token, or as another shop's secret.
    const access = after.find((v) => v.binding.column === "accessTokenEnc")!.value;
    expect(() =>
      openFor(bindings.customerGrant({ shop: SHOP_A, customerId: "1" }, "refreshTokenEnc"), access, parseKeyring(NEW)),
    ).toThrow(SecretBoxError);
    // Running it again changes nothing.
    const again = await rotateEncryptionKeys(db.prisma, both);
    expect(Object.values(again.reencrypted).every((n) => n === 0)).toBe(true);
  });

  it("with the same key, rewrites v1 values as v2 (binding only, no new key needed)", async () => {
    await db.prisma.customerGrant.create({
      data: {
        shop: SHOP_A,
        customerId: "same-key",
        workspaceId: "ws",
        scopes: "",
        accessTokenEnc: legacySeal("access-same", parseKeyring(NEW)),
      },
    });
    const ring = parseKeyring(NEW);
    expect(await countStale(db.prisma, ring)).toBe(1);
    const report = await rotateEncryptionKeys(db.prisma, ring);
    expect(report.reencrypted["customerGrant.accessTokenEnc"]).toBe(1);
    expect(report.remaining).toBe(0);
    const row = await db.prisma.customerGrant.findUniqueOrThrow({
      where: { shop_customerId: { shop: SHOP_A, customerId: "same-key" } },
    });
    expect(row.accessTokenEnc).toMatch(/^enc:v2:new:/);
    expect(openFor(bindings.customerGrant(row, "accessTokenEnc"), row.accessTokenEnc, ring)).toBe("access-same");
  });

  it("never launders a value moved to another row: it is left undecryptable and counted as remaining", async () => {
    const victim = sealFor(
      bindings.customerGrant({ shop: SHOP_A, customerId: "victim" }, "accessTokenEnc"),
      "victim-token",
      parseKeyring(OLD),
    );
    // Moved into another customer's row, under the old key: the rotation has to open it to move it to the new one.
    await db.prisma.customerGrant.create({
      data: { shop: SHOP_A, customerId: "thief", workspaceId: "ws", scopes: "", accessTokenEnc: victim },
    });
    const report = await rotateEncryptionKeys(db.prisma, parseKeyring(`${NEW},${OLD}`));
    expect(report.skipped["customerGrant.accessTokenEnc"]).toBe(1);
    expect(report.remaining).toBe(1);
    const row = await db.prisma.customerGrant.findUniqueOrThrow({
      where: { shop_customerId: { shop: SHOP_A, customerId: "thief" } },
    });
    expect(row.accessTokenEnc).toBe(victim);
    await db.prisma.customerGrant.delete({ where: { id: row.id } });
  });

  it("tokens pending on a connection attempt, sessions and the revocation outbox are re-encrypted too", async () => {
    const ring = parseKeyring(OLD);
    await db.prisma.oAuthState.create({
      data: {
        state: "p".repeat(43),
        shop: SHOP_A,
        customerId: "2",
        codeVerifierEnc: legacySeal("verifier-2", ring),
        pendingTokensEnc: legacySeal('{"accessToken":"pending-access"}', ring),
        redirectUri: "http://x/connect/callback",
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    await db.prisma.session.create({
      data: { id: `offline_${SHOP_A}`, shop: SHOP_A, state: "", accessToken: legacySeal("shpat_old", ring) },
    });
    const outbox = await db.prisma.tokenRevocation.create({ data: { sealed: legacySeal('{"token":"t"}', ring) } });
    const both = parseKeyring(`${NEW},${OLD}`);
    expect(await countStale(db.prisma, both)).toBe(4);
    const report = await rotateEncryptionKeys(db.prisma, both);
    expect(report.reencrypted["oAuthState.pendingTokensEnc"]).toBe(1);
    expect(report.reencrypted["session.accessToken"]).toBe(1);
    expect(report.reencrypted["tokenRevocation.sealed"]).toBe(1);
    expect(report.remaining).toBe(0);
    const onlyNew = parseKeyring(NEW);
    const row = await db.prisma.oAuthState.findUniqueOrThrow({ where: { state: "p".repeat(43) } });
    expect(keyIdOf(row.pendingTokensEnc!)).toBe("new");
    expect(openFor(bindings.oauthState(row, "pendingTokensEnc"), row.pendingTokensEnc!, onlyNew)).toBe(
      '{"accessToken":"pending-access"}',
    );
    const session = await db.prisma.session.findUniqueOrThrow({ where: { id: `offline_${SHOP_A}` } });
    expect(openFor(bindings.session(session, "accessToken"), session.accessToken, onlyNew)).toBe("shpat_old");
    const sealed = (await db.prisma.tokenRevocation.findUniqueOrThrow({ where: { id: outbox.id } })).sealed;
    expect(openFor(bindings.tokenRevocation(outbox.id), sealed, onlyNew)).toBe('{"token":"t"}');
  });

  it("`npm run rotate-key` (the script) re-encrypts a real PGlite data directory", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rotate-key-"));
    const dataDir = path.join(dir, "pglite");
    try {
      const first = openDatabase({ dataDir });
      await first.ready;
      await seed(first.prisma, OLD);
      await first.close();

      const stdout = await runRotateKey({ DATABASE_URL: "", PGLITE_DATA_DIR: dataDir });
      expect(stdout).toContain("re-encrypted 5 value(s)");
      expect(stdout).not.toMatch(/client-secret-A|refresh-1|access-1/);

      const second = openDatabase({ dataDir });
      await second.ready;
      try {
        const after = await allCiphertexts(second.prisma);
        expect(after).toHaveLength(5);
        expect(after.every(({ value }) => value.startsWith("enc:v2:new:"))).toBe(true);
        expect(openAll(after, NEW)).toEqual(PLAINTEXTS);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "`npm run rotate-key` on PostgreSQL",
    async () => {
      const pgdb = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
      try {
        await seed(pgdb.prisma, OLD);
        const stdout = await runRotateKey({ DATABASE_URL: pgdb.url! });
        expect(stdout).toContain("re-encrypted 5 value(s)");
        const after = await allCiphertexts(pgdb.prisma);
        expect(after.every(({ value }) => value.startsWith("enc:v2:new:"))).toBe(true);
        expect(openAll(after, NEW)).toEqual(PLAINTEXTS);
      } finally {
        await pgdb.close();
      }
    },
    180_000,
  );
});

async function runRotateKey(database: Record<string, string>): Promise<string> {
  const tsx = path.resolve("node_modules/.bin/tsx");
  const { stdout } = await promisify(execFile)(tsx, ["scripts/rotate-encryption-key.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      SHOPIFY_API_KEY: "k",
      SHOPIFY_API_SECRET: "s",
      SHOPIFY_APP_URL: "https://app.example.com",
      ENCRYPTION_KEYS: `${NEW},${OLD}`,
      ...database,
    },
    timeout: 120_000,
  });
  return stdout;
}
