// Cart handoff request signing (docs/service.md, "Cart handoff signature"): signed string, v1 HMAC-SHA256, header
// parsing, nonce and timestamp.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export const TIMESTAMP_WINDOW_SECONDS = 300;
export const NONCE_TTL_SECONDS = 600;

const NONCE = /^[A-Za-z0-9._~-]{16,128}$/;
const TIMESTAMP = /^[0-9]+$/;
const HEX64 = /^[0-9a-f]{64}$/;

export function sha256Hex(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export interface SignedParts {
  method: string;
  pathWithQuery: string;
  clientId: string;
  timestamp: string;
  nonce: string;
  idempotencyKey: string | undefined;
  body: Buffer | string;
}

/** The eight signed lines (docs/service.md), joined by \n with no trailing newline. */
export function signedString(p: SignedParts): string {
  return [
    "v1",
    p.method,
    p.pathWithQuery,
    p.clientId,
    p.timestamp,
    p.nonce,
    p.idempotencyKey ?? "",
    sha256Hex(p.body),
  ].join("\n");
}

/** Lowercase hex HMAC-SHA256 of the signed string (without the `v1=` prefix). */
export function sign(secret: string, parts: SignedParts): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(signedString(parts), "utf8").digest("hex");
}

/** The `v1=` values of an X-Service-Signature header; other schemes are ignored. */
export function v1Signatures(header: string): string[] {
  const out: string[] = [];
  for (const entry of header.split(",")) {
    const trimmed = entry.trim();
    if (trimmed.startsWith("v1=")) out.push(trimmed.slice(3));
  }
  return out;
}

/** True when any v1 entry equals the HMAC under any of the secrets; compared in constant time. */
export function signatureMatches(header: string, secrets: string[], parts: SignedParts): boolean {
  const candidates = v1Signatures(header).filter((s) => HEX64.test(s)); // only lowercase hex can match
  if (candidates.length === 0) return false;
  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(sign(secret, parts), "utf8");
    for (const candidate of candidates) {
      // Every pair is compared, so timing does not reveal which secret or entry matched.
      if (timingSafeEqual(expected, Buffer.from(candidate, "utf8"))) matched = true;
    }
  }
  return matched;
}

export function isValidNonce(nonce: string): boolean {
  return NONCE.test(nonce);
}

/** Integer Unix seconds within ±300 s of the service clock (inclusive). */
export function timestampInWindow(timestamp: string, nowMs: number): boolean {
  if (!TIMESTAMP.test(timestamp)) return false;
  const ts = Number(timestamp);
  return Math.abs(Math.floor(nowMs / 1000) - ts) <= TIMESTAMP_WINDOW_SECONDS;
}
