// What the app wrote before values were bound to their rows (format v1): AES-256-GCM with the key id alone as
// additional data, byte for byte the old encryptSecret. Tests seed "rows written by the old code" with it.
import { createCipheriv, randomBytes } from "node:crypto";
import type { Keyring } from "~/crypto/secret-box.server";

export function legacySeal(plaintext: string, keyring: Keyring): string {
  const key = keyring.keys.get(keyring.currentId)!;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(keyring.currentId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `enc:v1:${keyring.currentId}:${iv.toString("base64")}:${tag.toString("base64")}:${ciphertext.toString("base64")}`;
}
