import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import prisma from "../db.server";
import { accountOrderStatus } from "../connections/customer-account.server";
import { authenticate } from "../shopify.server";
import { authenticateCustomerAccount, overShopperBudget } from "../shopify/customer-account-auth.server";

// /customer-account/orders/<order id>: the order status block. Whether the order and its shipments reached the
// customer's workspace, answered only for the token's own customer: another customer's order, another shop's and
// an unknown one get the same {status: "unknown"}.

export const loader = async ({ request, params, context }: LoaderFunctionArgs) => {
  const { shop, customerId, cors } = await authenticateCustomerAccount(request, authenticate.public.customerAccount);
  const refused = await overShopperBudget("request", request, context.remoteAddress, { shop, customerId });
  if (refused) return cors(refused);
  return cors(json(await accountOrderStatus(prisma, shop, customerId, String(params.orderId ?? "").slice(0, 100))));
};

export const action = async ({ request }: LoaderFunctionArgs) => {
  const { cors } = await authenticateCustomerAccount(request, authenticate.public.customerAccount); // answers the CORS preflight
  return cors(json({ error: "method_not_allowed", message: "Use GET." }, { status: 405 }));
};
