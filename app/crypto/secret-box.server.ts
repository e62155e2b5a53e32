// Encryption at rest for merchant secrets, OAuth tokens and PKCE verifiers: AES-256-GCM from node:crypto.
// Format: `enc:v1:<keyId>:<iv b64>:<tag b64>:<ciphertext b64>`. The key id travels with each value so keys can be
// rotated: new values use the current (first) key of ENCRYPTION_KEYS, older keys stay listed until
// `npm run rotate-key` has re-encrypted everything under the current one.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { env } from "../env.server";

const PREFIX = "enc:v1:";
const IV_BYTES = 12; // the GCM standard nonce size
const TAG_BYTES = 16;

export interface Keyring {
  currentId: string;
  keys: ReadonlyMap<string, Buffer>;
}

/** Raised for malformed, tampered or undecryptable values. The message never contains key or plaintext material. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretBoxError";
  }
}

/** Parses "keyId:base64key[,keyId:base64key…]"; the first entry is the current key. */
export function parseKeyring(spec: string): Keyring {
  const keys = new Map<string, Buffer>();
  let currentId: string | undefined;
  for (const entry of spec.split(",").map((s) => s.trim()).filter(Boolean)) {
    const colon = entry.indexOf(":");
    const id = entry.slice(0, colon);
    const key = Buffer.from(entry.slice(colon + 1), "base64");
    if (colon <= 0 || !/^[A-Za-z0-9_-]+$/.test(id)) throw new SecretBoxError("ENCRYPTION_KEYS: every entry must be keyId:base64key");
    if (key.length !== 32) throw new SecretBoxError(`ENCRYPTION_KEYS: key "${id}" must be 32 bytes (base64)`);
    if (keys.has(id)) throw new SecretBoxError(`ENCRYPTION_KEYS: key id "${id}" is listed twice`);
    keys.set(id, key);
    currentId ??= id;
  }
  if (!currentId) throw new SecretBoxError("ENCRYPTION_KEYS is empty");
  return { currentId, keys };
}

let cached: { spec: string; keyring: Keyring } | undefined;
/** The keyring from ENCRYPTION_KEYS (validated by env()); modules take a Keyring argument so tests can pass their own. */
export function defaultKeyring(): Keyring {
  const spec = env().ENCRYPTION_KEYS;
  if (cached?.spec !== spec) cached = { spec, keyring: parseKeyring(spec) };
  return cached.keyring;
}

export function isEncrypted(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** The key id a stored value was encrypted with, or null when it is not one of ours. */
export function keyIdOf(value: string): string | null {
  if (!isEncrypted(value)) return null;
  return value.slice(PREFIX.length).split(":")[0] || null;
}

export function encryptSecret(plaintext: string, keyring: Keyring = defaultKeyring()): string {
  const key = keyring.keys.get(keyring.currentId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  // The key id is authenticated too, so a value cannot be relabelled to another key.
  cipher.setAAD(Buffer.from(keyring.currentId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${PREFIX}${keyring.currentId}:${iv.toString("base64")}:${tag.toString("base64")}:${ciphertext.toString("base64")}`;
}

export function decryptSecret(value: string, keyring: Keyring = defaultKeyring()): string {
  if (!isEncrypted(value)) throw new SecretBoxError("not an encrypted value (expected enc:v1:…)");
  const parts = value.slice(PREFIX.length).split(":");
  if (parts.length !== 4) throw new SecretBoxError("malformed encrypted value");
  const [keyId, ivB64, tagB64, ctB64] = parts;
  const key = keyring.keys.get(keyId);
  if (!key) throw new SecretBoxError(`encrypted with key "${keyId}", which ENCRYPTION_KEYS no longer lists`);
  const iv = Buffer.from(ivB64, "base64");
  const tag = Buffer.from(tagB64, "base64");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError("malformed encrypted value");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(keyId, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ctB64, "base64")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretBoxError(`encrypted value failed authentication (tampered, or wrong key "${keyId}")`);
  }
}

/** Null-tolerant helpers for optional columns. */
export const encryptOptional = (value: string | null | undefined, keyring?: Keyring) =>
  value == null ? null : encryptSecret(value, keyring);
export const decryptOptional = (value: string | null | undefined, keyring?: Keyring) =>
  value == null ? null : decryptSecret(value, keyring);

/** Re-encrypts under the current key when the value uses another one; returns null when nothing needs doing. */
export function reencryptIfStale(value: string, keyring: Keyring = defaultKeyring()): string | null {
  if (keyIdOf(value) === keyring.currentId) return null;
  return encryptSecret(decryptSecret(value, keyring), keyring);
}
