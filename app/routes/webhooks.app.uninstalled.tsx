import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { actOnce, verifyWebhook } from "../lib/webhook.server";

// The webhook can arrive more than once, and after the sessions are already gone. Its body (the shop, with its
// updated_at) differs between two real uninstalls, so a replayed body is recognised by its content.
export const action = async ({ request }: ActionFunctionArgs) => {
  const check = await verifyWebhook(request, "app/uninstalled");
  if (!check.ok) return check.response;
  const { shop, session } = check.webhook;
  if (session) await actOnce(check.webhook, { byContent: true }, () => prisma.session.deleteMany({ where: { shop } }));
  return new Response();
};
