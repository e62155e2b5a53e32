import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { actOnce, verifyWebhook } from "../lib/webhook.server";

export const action = async ({ request }: ActionFunctionArgs) => {
  const check = await verifyWebhook(request, "app/scopes_update");
  if (!check.ok) return check.response;
  const { payload, session } = check.webhook;
  const current = (payload as { current?: string[] }).current;
  if (session && Array.isArray(current)) {
    await actOnce(check.webhook, { byContent: true }, () =>
      prisma.session.update({ where: { id: session.id }, data: { scope: current.join(",") } }),
    );
  }
  return new Response();
};
