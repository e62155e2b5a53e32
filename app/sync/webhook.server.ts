// Shared by the webhooks.* routes: verify with Shopify's library, then hand plain data to the domain.
import { authenticate } from "../shopify.server";
import prisma from "../db.server";
import { recordSyncDelivery } from "./intake.server";
import { parseShopifyJson } from "./mapping.server";
import { notifyWorkers } from "./signal.server";

/**
 * Verifies the HMAC (401 otherwise, nothing stored), records the delivery and its job durably in one statement,
 * answers 200. Everything else happens in the worker, after the answer.
 */
export async function receiveSyncWebhook(request: Request): Promise<Response> {
  const { shop, topic, payload, webhookId, eventId } = await verifyWebhook(request);
  const result = await recordSyncDelivery(prisma, { shop, topic, eventId: eventId || webhookId, webhookId, payload });
  if (result.jobId) notifyWorkers();
  return new Response(null, { status: 200 });
}

/**
 * Shopify's library verifies the HMAC (401 otherwise, nothing read further); the payload is then parsed again from
 * the same bytes keeping 64-bit ids exact (an order or customer id above 2^53 must not lose digits).
 */
export async function verifyWebhook(request: Request) {
  const raw = request.clone().text();
  const verified = await authenticate.webhook(request);
  let payload: unknown = verified.payload;
  try {
    payload = parseShopifyJson(await raw);
  } catch {
    // authenticate.webhook parsed it already; keep its result
  }
  return { ...verified, payload };
}
