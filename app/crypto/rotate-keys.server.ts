// Re-encrypts every stored secret under the current (first) key of ENCRYPTION_KEYS, in the row-bound format (v2:
// bound to its table, column, shop and row key, secret-box.server.ts); v1 values (key id only) are rewritten even
// when their key is the current one. Each value is replaced with a
// compare-and-set on its old ciphertext, so a value changed meanwhile (a merchant saving settings, a worker saving
// refreshed tokens) is left to its writer, who already used the current key and format. Safe to run again; safe while the
// app runs. Once it reports nothing left, the old key can be removed from ENCRYPTION_KEYS.
import type { PrismaClient } from "@prisma/client";
import {
  bindings,
  currentPrefix,
  isEncrypted,
  resealIfStale,
  sealFor,
  type Binding,
  type Keyring,
} from "./secret-box.server";

export interface RotationReport {
  currentKeyId: string;
  /** Values re-encrypted, per table.column. */
  reencrypted: Record<string, number>;
  /** Values skipped because they changed while we worked (already current) or could not be decrypted. */
  skipped: Record<string, number>;
  /** Values still under another key or in the v1 format after the run (undecryptable ones; investigate before removing keys). */
  remaining: number;
}

type Row = Record<string, string | null>;

interface Column {
  table: "shopSettings" | "oAuthState" | "customerGrant" | "session" | "tokenRevocation";
  /** The primary key: keyset pagination and the compare-and-set. */
  idField: "shop" | "state" | "id";
  field: Binding["column"];
  /** The row's binding (secret-box.server.ts), from the fields in `select`. */
  bind: (row: Row) => Binding;
  select: string[];
  /** Shopify's sessions may still hold plain text written before EncryptedSessionStorage: encrypt those too. */
  mayBePlain?: boolean;
}

const s = (row: Row, field: string) => row[field] ?? "";

// Every column of SEALED_COLUMNS (a test checks none is missing).
export const COLUMNS: Column[] = [
  ...(["clientSecretEnc", "signingSecretEnc"] as const).map((field): Column => ({
    table: "shopSettings",
    idField: "shop",
    field,
    select: ["shop"],
    bind: (r) => bindings.shopSettings(s(r, "shop"), field),
  })),
  ...(["codeVerifierEnc", "pendingTokensEnc"] as const).map((field): Column => ({
    table: "oAuthState",
    idField: "state",
    field,
    select: ["state", "shop"],
    bind: (r) => bindings.oauthState({ shop: s(r, "shop"), state: s(r, "state") }, field),
  })),
  ...(["accessTokenEnc", "refreshTokenEnc"] as const).map((field): Column => ({
    table: "customerGrant",
    idField: "id",
    field,
    select: ["id", "shop", "customerId"],
    bind: (r) => bindings.customerGrant({ shop: s(r, "shop"), customerId: s(r, "customerId") }, field),
  })),
  ...(["accessToken", "refreshToken"] as const).map((field): Column => ({
    table: "session",
    idField: "id",
    field,
    select: ["id", "shop"],
    bind: (r) => bindings.session({ shop: s(r, "shop"), id: s(r, "id") }, field),
    mayBePlain: true,
  })),
  {
    table: "tokenRevocation",
    idField: "id",
    field: "sealed",
    select: ["id"],
    bind: (r) => bindings.tokenRevocation(s(r, "id")),
  },
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
          // v1 values (any key) and v2 values under another key; plain text too where it may be.
          [column.field]: column.mayBePlain ? { gt: "" } : { startsWith: "enc:v" },
          NOT: { [column.field]: { startsWith: currentPrefix(keyring) } },
          ...(cursor !== undefined ? { [column.idField]: { gt: cursor } } : {}),
        },
        orderBy: { [column.idField]: "asc" },
        take: BATCH,
        select: Object.fromEntries([column.idField, column.field, ...column.select].map((f) => [f, true])),
      });
      if (rows.length === 0) break;
      for (const row of rows) {
        const old = row[column.field]!;
        let fresh: string | null;
        try {
          const binding = column.bind(row);
          fresh =
            column.mayBePlain && !isEncrypted(old)
              ? sealFor(binding, old, keyring)
              : resealIfStale(binding, old, keyring);
        } catch {
          skipped += 1; // its key is no longer listed, or it was tampered with or moved: counted in `remaining`
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

/** How many stored values are not row-bound under the current key (v1, another key, or plain text). */
export async function countStale(prisma: PrismaClient, keyring: Keyring): Promise<number> {
  let total = 0;
  for (const column of COLUMNS) {
    const delegate = prisma[column.table] as unknown as Delegate;
    total += await delegate.count({
      where: {
        [column.field]: { gte: "" }, // any value, never NULL (works for required and optional columns)
        NOT: { [column.field]: { startsWith: currentPrefix(keyring) } },
      },
    });
  }
  return total;
}
