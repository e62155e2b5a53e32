import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { verifyWebhook } from "../lib/webhook.server";
import { recordDelivery } from "../sync/intake.server";

// Kept as a delivery so the merchant's data request can be answered from what the app holds for the customer.
export const action = async ({ request }: ActionFunctionArgs) => {
  const check = await verifyWebhook(request, "customers/data_request");
  if (!check.ok) return check.response;
  const { shop, topic, payload, webhookId, eventId } = check.webhook;
  await recordDelivery(prisma, { shop, topic, eventId, webhookId, payload });
  return new Response();
};
