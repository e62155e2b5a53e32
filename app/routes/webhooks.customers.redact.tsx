import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { actOnce, verifyWebhook } from "../lib/webhook.server";
import { redactCustomer } from "../privacy/compliance.server";

// Acted on once per signed body: a captured body replayed under new ids cannot erase a grant the customer made
// again after the redaction.
export const action = async ({ request }: ActionFunctionArgs) => {
  const check = await verifyWebhook(request, "customers/redact");
  if (!check.ok) return check.response;
  const { shop, payload } = check.webhook;
  const customerId = (payload as { customer?: { id?: number | string } }).customer?.id;
  if (customerId !== undefined) {
    await actOnce(check.webhook, { byContent: true }, () => redactCustomer(prisma, shop, String(customerId)));
  }
  return new Response();
};
