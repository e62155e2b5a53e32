// The backend of the order page block (extensions/order-sync-block): GET the order's imports, POST Retry now /
// Mark as resolved. Who may call and how: app/callers/order-page.server.ts. Logic: app/admin/order-block.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import prisma from "../db.server";
import { orderPageStaff } from "../callers/order-page.server";
import { loadOrderBlock, orderBlockAction } from "../admin/order-block.server";

export const loader = async (args: LoaderFunctionArgs) => {
  const { shop, orderId, cors } = await orderPageStaff(args);
  return cors(json(await loadOrderBlock(prisma, shop, orderId)));
};

export const action = async (args: ActionFunctionArgs) => {
  const staff = await orderPageStaff(args, { method: "POST" });
  const body = await staff.readJson();
  if (!body.ok) return body.response;
  const { intent, recordId } = body.value;
  const result = await orderBlockAction(prisma, staff.shop, staff.orderId, { intent, recordId });
  const status = result.ok ? 200 : result.message === "Unknown action." ? 400 : 404;
  return staff.cors(json(result, { status }));
};
