// The headers Shopify sends with every webhook, checked before a byte of the body is read (server/direct-actions.ts)
// and again with it (./webhook.server.ts): a request without them, with a malformed one, or naming another topic
// than its route's is not Shopify's delivery for that route, whatever its body. A leaf module (no configuration),
// so the server's bundle can use it.

export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;
const TOKEN = /^[\x21-\x7e]{1,255}$/;
// Base64 of an HMAC-SHA256 (32 bytes): 43 characters and one "=".
const HMAC = /^[A-Za-z0-9+/]{43}=$/;

/** "orders/create", "ORDERS_CREATE" and "orders_create" alike. */
export const normalizeTopic = (topic: string) => topic.trim().toUpperCase().replace(/[/.]/g, "_");

export type HeaderProblem = "missing_header" | "malformed_header" | "topic_mismatch";

/**
 * What is wrong with a delivery's Shopify headers, or null. `header` reads one (lower-case name); `routeTopic`, when
 * given, is the topic the route takes ("orders/create").
 */
export function webhookHeaderProblem(
  header: (name: string) => string | null | undefined,
  routeTopic?: string,
): HeaderProblem | null {
  const hmac = header("x-shopify-hmac-sha256");
  const shop = header("x-shopify-shop-domain");
  const topic = header("x-shopify-topic");
  const webhookId = header("x-shopify-webhook-id");
  const eventId = header("x-shopify-event-id");
  if (!hmac || !shop || !topic || !webhookId) return "missing_header";
  if (!HMAC.test(hmac) || !SHOP_DOMAIN.test(shop.toLowerCase()) || !TOKEN.test(topic) || !TOKEN.test(webhookId))
    return "malformed_header";
  if (eventId && !TOKEN.test(eventId)) return "malformed_header";
  if (routeTopic !== undefined && normalizeTopic(topic) !== normalizeTopic(routeTopic)) return "topic_mismatch";
  return null;
}
