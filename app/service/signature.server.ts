// Cart handoff request signature (docs/service.md, "Cart handoff signature"): eight lines joined by "\n",
// HMAC-SHA256 with the signing secret, sent as `X-Service-Signature: v1=<lowercase hex>`.
import { createHmac } from "node:crypto";
import { sha256 } from "../lib/hash";

export interface SignatureInput {
  method: string;
  /** Path with query, exactly as the request line carries it, e.g. `/api/v1/cart-handoffs`. */
  pathWithQuery: string;
  clientId: string;
  /** Integer Unix seconds. */
  timestamp: number;
  nonce: string;
  /** Empty line when absent. */
  idempotencyKey?: string;
  /** The raw body bytes as sent. */
  body: Uint8Array;
}

export const sha256Hex = (bytes: Uint8Array): string => sha256(bytes);

export function signedString(input: SignatureInput): string {
  return [
    "v1",
    input.method.toUpperCase(),
    input.pathWithQuery,
    input.clientId,
    String(input.timestamp),
    input.nonce,
    input.idempotencyKey ?? "",
    sha256Hex(input.body),
  ].join("\n");
}

/** The `X-Service-Signature` value for one secret. */
export function signatureHeader(signingSecret: string, input: SignatureInput): string {
  return `v1=${createHmac("sha256", Buffer.from(signingSecret, "utf8")).update(signedString(input), "utf8").digest("hex")}`;
}

/** All X-Service-* headers for one attempt. A retry calls this again with a new timestamp and nonce. */
export function signedHeaders(signingSecret: string, input: SignatureInput): Record<string, string> {
  return {
    "X-Service-Client-Id": input.clientId,
    "X-Service-Timestamp": String(input.timestamp),
    "X-Service-Nonce": input.nonce,
    "X-Service-Signature": signatureHeader(signingSecret, input),
  };
}
