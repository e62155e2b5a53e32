// Verifies a Shopify webhook the way Shopify documents it (HMAC-SHA256 of the raw body with the app's API secret,
// base64, compared in constant time) without loading or decrypting the shop's session: intake needs none, and
// reading it cost a database round trip per delivery. Pure: headers, raw bytes and the secret in; facts or a
// status out.
import { createHmac, timingSafeEqual } from "node:crypto";

export interface VerifiedWebhook {
  shop: string;
  /** As Shopify's library gives it ("ORDERS_CREATE" for the header's "orders/create"), so stored topics keep one form. */
  topic: string;
  webhookId: string;
  /** X-Shopify-Event-Id, or the webhook id when absent (also stable across Shopify's retries). */
  eventId: string;
}

export type VerifyResult = { ok: true; webhook: VerifiedWebhook } | { ok: false; status: 400 | 401 };

const SHOP = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;
const TOKEN = /^[\x21-\x7e]{1,255}$/;

export function verifyShopifyWebhook(headers: Headers, rawBody: Uint8Array, secret: string): VerifyResult {
  const hmac = headers.get("x-shopify-hmac-sha256");
  const shop = headers.get("x-shopify-shop-domain")?.toLowerCase();
  const topic = headers.get("x-shopify-topic");
  const webhookId = headers.get("x-shopify-webhook-id");
  const eventId = headers.get("x-shopify-event-id") || webhookId;
  if (!hmac || !shop || !topic || !webhookId || !eventId) return { ok: false, status: 400 };
  if (!SHOP.test(shop) || !TOKEN.test(topic) || !TOKEN.test(webhookId) || !TOKEN.test(eventId)) return { ok: false, status: 400 };
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  const given = Buffer.from(hmac, "base64");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, status: 401 };
  return { ok: true, webhook: { shop, topic: topic.toUpperCase().replace(/\//g, "_"), webhookId, eventId } };
}
