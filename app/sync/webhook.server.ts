// Shared by the sync webhooks.* routes: verify (app/lib/webhook.server.ts), then hand plain data to the domain.
import prisma from "../db.server";
import { verifyWebhook, type VerifiedWebhook } from "../lib/webhook.server";
import { recordSyncDelivery } from "./intake.server";
import { parseShopifyJson } from "./mapping.server";
import { notifyWorkers } from "./signal.server";

/** The payload parsed again from the signed bytes keeping 64-bit ids exact (an id above 2^53 must not lose digits). */
export function exactPayload(webhook: VerifiedWebhook): unknown {
  try {
    return parseShopifyJson(new TextDecoder().decode(webhook.bytes));
  } catch {
    return webhook.payload; // Shopify's library parsed it already; keep its result
  }
}

/**
 * Verifies the body (bounded, read once), HMAC and topic (refused otherwise, nothing stored), records the delivery
 * and its job durably in one statement, answers 200. Everything else happens in the worker, after the answer.
 */
export async function receiveSyncWebhook(request: Request, routeTopic: string): Promise<Response> {
  const check = await verifyWebhook(request, routeTopic);
  if (!check.ok) return check.response;
  const { shop, topic, webhookId, eventId } = check.webhook;
  const result = await recordSyncDelivery(prisma, { shop, topic, eventId, webhookId, payload: exactPayload(check.webhook) });
  if (result.jobId) notifyWorkers();
  return new Response(null, { status: 200 });
}
