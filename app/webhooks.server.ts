// Shared by the webhooks.* routes: verify with Shopify's library, then hand plain data to the domain.
import { authenticate } from "./shopify.server";
import prisma from "./db.server";
import { recordDelivery } from "./sync/intake.server";

/** Verifies the HMAC (401 otherwise, nothing stored), records the delivery durably, answers 200. */
export async function receiveSyncWebhook(request: Request): Promise<Response> {
  const { shop, topic, payload, webhookId, eventId } = await authenticate.webhook(request);
  await recordDelivery(prisma, { shop, topic, eventId: eventId || webhookId, webhookId, payload });
  return new Response(null, { status: 200 });
}
