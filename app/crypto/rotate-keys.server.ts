// Re-encrypts every stored secret under the current (first) key of ENCRYPTION_KEYS. Each value is replaced with a
// compare-and-set on its old ciphertext, so a value changed meanwhile (a merchant saving settings, a worker saving
// refreshed tokens) is left to its writer, who already used the current key. Safe to run again; safe while the
// app runs. Once it reports nothing left, the old key can be removed from ENCRYPTION_KEYS.
import type { PrismaClient } from "@prisma/client";
import { encryptSecret, isEncrypted, reencryptIfStale, type Keyring } from "./secret-box.server";

export interface RotationReport {
  currentKeyId: string;
  /** Values re-encrypted, per table.column. */
  reencrypted: Record<string, number>;
  /** Values skipped because they changed while we worked (already current) or could not be decrypted. */
  skipped: Record<string, number>;
  /** Values still under another key after the run (undecryptable ones; investigate before removing keys). */
  remaining: number;
}

interface Column {
  table: "shopSettings" | "oAuthState" | "customerGrant" | "session" | "tokenRevocation";
  idField: "shop" | "state" | "id";
  field:
    | "clientSecretEnc"
    | "signingSecretEnc"
    | "codeVerifierEnc"
    | "pendingTokensEnc"
    | "accessTokenEnc"
    | "refreshTokenEnc"
    | "accessToken"
    | "refreshToken"
    | "sealed";
  /** Shopify's sessions may still hold plain text written before EncryptedSessionStorage: encrypt those too. */
  mayBePlain?: boolean;
}

const COLUMNS: Column[] = [
  { table: "shopSettings", idField: "shop", field: "clientSecretEnc" },
  { table: "shopSettings", idField: "shop", field: "signingSecretEnc" },
  { table: "oAuthState", idField: "state", field: "codeVerifierEnc" },
  { table: "oAuthState", idField: "state", field: "pendingTokensEnc" },
  { table: "customerGrant", idField: "id", field: "accessTokenEnc" },
  { table: "customerGrant", idField: "id", field: "refreshTokenEnc" },
  { table: "session", idField: "id", field: "accessToken", mayBePlain: true },
  { table: "session", idField: "id", field: "refreshToken", mayBePlain: true },
  { table: "tokenRevocation", idField: "id", field: "sealed" },
];

const BATCH = 200;

// Prisma's delegates differ per model; this narrow shape is all the rotation needs.
interface Delegate {
  findMany(args: unknown): Promise<Record<string, string | null>[]>;
  updateMany(args: unknown): Promise<{ count: number }>;
  count(args: unknown): Promise<number>;
}

export async function rotateEncryptionKeys(
  prisma: PrismaClient,
  keyring: Keyring,
  options: { log?: (line: string) => void } = {},
): Promise<RotationReport> {
  const report: RotationReport = { currentKeyId: keyring.currentId, reencrypted: {}, skipped: {}, remaining: 0 };
  for (const column of COLUMNS) {
    const delegate = prisma[column.table] as unknown as Delegate;
    const name = `${column.table}.${column.field}`;
    let done = 0;
    let skipped = 0;
    let cursor: string | undefined;
    // Keyset pagination over the id, so rows updated during the run are neither skipped nor visited twice.
    for (;;) {
      const rows = await delegate.findMany({
        where: {
          [column.field]: column.mayBePlain ? { gt: "" } : { startsWith: "enc:v1:" },
          NOT: { [column.field]: { startsWith: `enc:v1:${keyring.currentId}:` } },
          ...(cursor !== undefined ? { [column.idField]: { gt: cursor } } : {}),
        },
        orderBy: { [column.idField]: "asc" },
        take: BATCH,
        select: { [column.idField]: true, [column.field]: true },
      });
      if (rows.length === 0) break;
      for (const row of rows) {
        const old = row[column.field]!;
        let fresh: string | null;
        try {
          fresh = column.mayBePlain && !isEncrypted(old) ? encryptSecret(old, keyring) : reencryptIfStale(old, keyring);
        } catch {
          skipped += 1; // its key is no longer listed, or it was tampered with: counted in `remaining`
          continue;
        }
        if (!fresh) continue;
        const updated = await delegate.updateMany({
          where: { [column.idField]: row[column.idField], [column.field]: old },
          data: { [column.field]: fresh },
        });
        if (updated.count === 1) done += 1;
        else skipped += 1;
      }
      cursor = rows[rows.length - 1][column.idField]!;
    }
    report.reencrypted[name] = done;
    report.skipped[name] = skipped;
    options.log?.(`${name}: ${done} re-encrypted${skipped ? `, ${skipped} skipped` : ""}`);
  }
  report.remaining = await countStale(prisma, keyring);
  return report;
}

/** How many stored values are not under the current key. */
export async function countStale(prisma: PrismaClient, keyring: Keyring): Promise<number> {
  let total = 0;
  for (const column of COLUMNS) {
    const delegate = prisma[column.table] as unknown as Delegate;
    total += await delegate.count({
      where: {
        [column.field]: { gte: "" }, // any value, never NULL (works for required and optional columns)
        NOT: { [column.field]: { startsWith: `enc:v1:${keyring.currentId}:` } },
      },
    });
  }
  return total;
}
