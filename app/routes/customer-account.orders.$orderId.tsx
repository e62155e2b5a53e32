import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import prisma from "../db.server";
import { customerAccountShopper } from "../callers/customer-account.server";
import { accountOrderStatus } from "../connections/account-order-status.server";

// /customer-account/orders/<order id>: the order status block. Whether the order and its shipments reached the
// customer's workspace, answered only for the token's own customer: another customer's order, another shop's and
// an unknown one get the same {status: "unknown"}.

export const loader = async (args: LoaderFunctionArgs) => {
  const { shop, customerId, cors } = await customerAccountShopper(args);
  const orderId = String(args.params.orderId ?? "").slice(0, 100);
  return cors(json(await accountOrderStatus(prisma, shop, customerId, orderId)));
};

// Only GET: the entry answers the CORS preflight (204) and any other method (405).
export const action = async (args: ActionFunctionArgs) => {
  await customerAccountShopper(args, { method: "GET" });
  return new Response(null, { status: 405 }); // not reached: an action is never a GET
};
