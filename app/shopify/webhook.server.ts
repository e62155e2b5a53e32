// The one webhook verifier, for every webhooks.* route (docs/decisions/0006). Verified the way Shopify documents
// it: HMAC-SHA256 of the raw body with the app's API secret, base64, compared in constant time; no session is
// read (no topic needs one, and reading it cost a database round trip per delivery). The HMAC covers the body
// only, so the rest is checked too: the topic header must be the route's topic, and a body that names a shop must
// name the shop of the X-Shopify-Shop-Domain header. The body is read once, bounded (lib/body-limit.server.ts),
// and parsed once, keeping 64-bit ids exact.
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "../env.server";
import { readBody } from "../lib/body-limit.server";
import { webhookDeliveries } from "../lib/metrics.server";
import { securityLog } from "../lib/security-log.server";
import { normalizeTopic, webhookHeaderProblem } from "./webhook-headers";

export interface VerifiedWebhook {
  shop: string;
  /** Normalised, e.g. "ORDERS_CREATE" for the header's "orders/create", so stored topics keep one form. */
  topic: string;
  /** X-Shopify-Event-Id, or the webhook id when there is none (both stable across Shopify's retries). */
  eventId: string;
  webhookId: string;
  /** The body parsed once, ids above 2^53 kept exact (as strings). */
  payload: unknown;
  /** The signed bytes (content receipts hash them). */
  bytes: Uint8Array<ArrayBuffer>;
}

export type WebhookCheck = { ok: true; webhook: VerifiedWebhook } | { ok: false; response: Response };

/** What the headers and the HMAC alone establish. */
export type SignedDelivery = Pick<VerifiedWebhook, "shop" | "topic" | "eventId" | "webhookId">;
export type SignatureResult = { ok: true; webhook: SignedDelivery } | { ok: false; status: 400 | 401 };

/** Pure: headers, raw bytes and the secret in; the delivery's facts, or 400 (malformed) / 401 (wrong HMAC) out. */
export function verifyShopifyWebhook(headers: Headers, rawBody: Uint8Array, secret: string): SignatureResult {
  if (webhookHeaderProblem((name) => headers.get(name))) return { ok: false, status: 400 };
  const hmac = headers.get("x-shopify-hmac-sha256")!;
  const shop = headers.get("x-shopify-shop-domain")!.toLowerCase();
  const topic = headers.get("x-shopify-topic")!;
  const webhookId = headers.get("x-shopify-webhook-id")!;
  const eventId = headers.get("x-shopify-event-id") || webhookId;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  const given = Buffer.from(hmac, "base64");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, status: 401 };
  return { ok: true, webhook: { shop, topic: normalizeTopic(topic), webhookId, eventId } };
}

// Answered like a malformed delivery (no detail): the sender is not Shopify, or Shopify's configuration is broken.
const refused = (status: number) => ({ ok: false as const, response: new Response(null, { status }) });

/** The topic as a metric label: the route's own (a fixed set), "orders_create". */
export const topicLabel = (routeTopic: string) => normalizeTopic(routeTopic).toLowerCase();

export type RefusalReason = "too_large" | "malformed" | "signature" | "topic_mismatch" | "shop_mismatch";

/** Counts a refusal (webhook_deliveries_total{outcome="refused"}) and passes the answer on. */
function counted<T>(routeTopic: string, reason: RefusalReason, answer: T): T {
  webhookDeliveries.series(topicLabel(routeTopic), "refused", reason).inc();
  return answer;
}

/**
 * Reads and verifies a webhook for the route's topic: 413 for a body over the webhook limit, 401 for a wrong HMAC,
 * 400 for a malformed delivery, a topic that is not the route's, a body that is not JSON or names another shop.
 * Refusals after the HMAC are logged (security log).
 */
export async function verifyWebhook(request: Request, routeTopic: string): Promise<WebhookCheck> {
  const body = await readBody(request, "webhook"); // read once: the HMAC and the JSON use the same bytes
  if (!body.ok) return counted(routeTopic, body.response.status === 413 ? "too_large" : "malformed", body);
  const signed = verifyShopifyWebhook(request.headers, body.bytes, env().SHOPIFY_API_SECRET);
  if (!signed.ok) return counted(routeTopic, signed.status === 401 ? "signature" : "malformed", refused(signed.status));
  const { shop, topic, webhookId } = signed.webhook;
  const expected = normalizeTopic(routeTopic);
  if (topic !== expected) {
    securityLog().warn({ shop, topic, route: expected, webhookId, reason: "topic_mismatch" }, "webhook refused");
    return counted(routeTopic, "topic_mismatch", refused(400));
  }
  let payload: unknown;
  try {
    payload = parseShopifyJson(new TextDecoder().decode(body.bytes));
  } catch {
    return counted(routeTopic, "malformed", refused(400));
  }
  const named = shopNamedIn(payload);
  if (named !== undefined && named !== shop) {
    securityLog().warn({ shop, topic, webhookId, reason: "shop_mismatch" }, "webhook refused");
    return counted(routeTopic, "shop_mismatch", refused(400));
  }
  return { ok: true, webhook: { ...signed.webhook, payload, bytes: body.bytes } };
}

// Compliance bodies carry shop_domain; app/uninstalled's (the shop object) carries myshopify_domain.
function shopNamedIn(payload: unknown): string | undefined {
  if (!payload || typeof payload !== "object") return undefined;
  const p = payload as Record<string, unknown>;
  for (const field of ["shop_domain", "myshopify_domain"]) if (field in p) return String(p[field]).toLowerCase();
  return undefined;
}

/**
 * JSON.parse that keeps integers beyond 2^53 exact, as strings (Shopify ids are 64-bit; plain JSON.parse would
 * round 820982911946154508 to 820982911946154500, and then the service would get a wrong id). Uses the reviver's
 * source text (Node 22+); elsewhere it degrades to plain JSON.parse.
 */
export function parseShopifyJson(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text); // no number that could exceed 2^53: the fast path
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: { source?: string }) {
    if (
      typeof value === "number" &&
      !Number.isSafeInteger(value) &&
      context?.source &&
      /^-?\d+$/.test(context.source)
    ) {
      return context.source;
    }
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown);
}
