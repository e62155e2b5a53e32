// bulk_operations/finish (shopify.app.toml): Shopify says a bulk operation completed, failed or was cancelled. The
// delivery is verified like every webhook (app/shopify/webhook.server.ts); the run of that operation then looks at
// it now rather than at its next poll (bulk-backfill.server.ts reads the operation's state itself, so a forged or
// repeated delivery can only make it look sooner). Answered 200 once the wake-up is written.
import type { PrismaClient } from "@prisma/client";
import { webhookDeliveries } from "../lib/metrics.server";
import { topicLabel, verifyWebhook } from "../shopify/webhook.server";
import { wakeBulkRun } from "./bulk-backfill.server";
import { notifyWorkers } from "./signal.server";

const TOPIC = "bulk_operations/finish";

export async function receiveBulkFinish(prisma: PrismaClient, request: Request): Promise<Response> {
  const check = await verifyWebhook(request, TOPIC);
  if (!check.ok) return check.response;
  const payload = (check.webhook.payload ?? {}) as Record<string, unknown>;
  const id = payload.admin_graphql_api_id;
  const woken =
    typeof id === "string" && id.length <= 200 ? await wakeBulkRun(prisma, check.webhook.shop, id, new Date()) : false;
  if (woken) notifyWorkers();
  webhookDeliveries.series(topicLabel(TOPIC), woken ? "accepted" : "ignored", "").inc();
  return new Response(null, { status: 200 });
}
