// Shared by the sync webhooks.* routes: verify (app/lib/webhook.server.ts), then hand plain data to the domain.
import prisma from "../db.server";
import { verifyWebhook } from "../lib/webhook.server";
import { recordSyncDelivery } from "./intake.server";
import { parseShopifyJson } from "./mapping.server";
import { notifyWorkers } from "./signal.server";

/**
 * Verifies the body (bounded, read once), HMAC and topic (refused otherwise, nothing stored), records the delivery
 * and its job durably in one statement, answers 200. Everything else happens in the worker, after the answer.
 */
export async function receiveSyncWebhook(request: Request, routeTopic: string): Promise<Response> {
  const check = await verifyWebhook(request, routeTopic);
  if (!check.ok) return check.response;
  const { shop, topic, webhookId, eventId, bytes } = check.webhook;
  let payload = check.webhook.payload;
  try {
    payload = parseShopifyJson(new TextDecoder().decode(bytes)); // the same bytes, keeping 64-bit ids exact
  } catch {
    // Shopify's library parsed it already; keep its result
  }
  const result = await recordSyncDelivery(prisma, { shop, topic, eventId, webhookId, payload });
  if (result.jobId) notifyWorkers();
  return new Response(null, { status: 200 });
}
