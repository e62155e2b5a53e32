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
  const raw = request.clone().text(); // the same bytes, parsed again below keeping 64-bit ids exact
  const { shop, topic, payload: parsed, webhookId, eventId } = await authenticate.webhook(request);
  let payload: unknown = parsed;
  try {
    payload = parseShopifyJson(await raw);
  } catch {
    // authenticate.webhook parsed it already; keep its result
  }
  const result = await recordSyncDelivery(prisma, { shop, topic, eventId: eventId || webhookId, webhookId, payload });
  if (result.jobId) notifyWorkers();
  return new Response(null, { status: 200 });
}
