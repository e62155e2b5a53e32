import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { actOnce, verifyWebhook } from "../lib/webhook.server";
import { securityLog } from "../lib/security-log.server";
import { redactShop } from "../privacy/compliance.server";

// Shopify sends shop/redact 48 hours after an uninstall, and not at all when the app was installed again. Its body
// is the same every time, so content cannot tell a replay apart: an installed shop (it has an offline session)
// tells instead, and such a delivery erases nothing.
export const action = async ({ request }: ActionFunctionArgs) => {
  const check = await verifyWebhook(request, "shop/redact");
  if (!check.ok) return check.response;
  const { shop, session } = check.webhook;
  if (session) {
    securityLog().warn({ shop, topic: check.webhook.topic, reason: "shop_installed" }, "shop/redact ignored");
    return new Response();
  }
  await actOnce(check.webhook, {}, () => redactShop(prisma, shop));
  return new Response();
};
