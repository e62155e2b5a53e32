import type { ActionFunctionArgs } from "@remix-run/node";
import { authenticate } from "../shopify.server";
import prisma from "../db.server";
import { redactCustomer } from "../privacy/compliance.server";

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, payload } = await authenticate.webhook(request);
  const customerId = (payload as { customer?: { id?: number | string } }).customer?.id;
  if (customerId !== undefined) await redactCustomer(prisma, shop, String(customerId));
  return new Response();
};
