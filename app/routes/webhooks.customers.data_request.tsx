import type { ActionFunctionArgs } from "@remix-run/node";
import { authenticate } from "../shopify.server";
import prisma from "../db.server";
import { recordDelivery } from "../sync/intake.server";

// Kept as a delivery so the merchant's data request can be answered from what the app holds for the customer.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, topic, payload, webhookId, eventId } = await authenticate.webhook(request);
  await recordDelivery(prisma, { shop, topic, eventId: eventId || webhookId, webhookId, payload });
  return new Response();
};
