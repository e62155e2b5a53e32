// The app's one SHA-256: content receipts, idempotency keys, handoff facts, proof hashes, migration checksums and
// the service's body digest all hash through here. Text is hashed as UTF-8; a list is hashed as its parts in order.
import { createHash } from "node:crypto";

export type HashInput = string | Uint8Array;

export function sha256(data: HashInput | readonly HashInput[], encoding: "hex" | "base64url" = "hex"): string {
  const hash = createHash("sha256");
  for (const part of Array.isArray(data) ? data : [data]) hash.update(part as HashInput);
  return hash.digest(encoding);
}
