import type { ActionFunctionArgs } from "@remix-run/node";
import { authenticate } from "../shopify.server";
import prisma from "../db.server";

// The webhook can arrive more than once, and after the sessions are already gone.
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, session } = await authenticate.webhook(request);
  if (session) await prisma.session.deleteMany({ where: { shop } });
  return new Response();
};
