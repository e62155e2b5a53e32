// Webhooks as Shopify sends them: the JSON body signed with the app's API secret (base64 HMAC-SHA256) and
// Shopify's headers. Used by the demo's order generator and by the tests.
import { createHmac, randomUUID } from "node:crypto";
import { SHOPIFY_API_VERSION } from "../../app/shopify/api-version";

export function webhookHmac(body: string, secret: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("base64");
}

export interface SendWebhookOptions {
  shop: string;
  /** Signs the body; ignored when `hmac` is given. */
  secret?: string;
  /** A ready-made signature (tests send wrong ones). */
  hmac?: string;
  eventId?: string;
  webhookId?: string;
  apiVersion?: string;
  /** Another route than the topic's own (tests send a topic to the wrong route). */
  path?: string;
}

/** Posts a webhook to `{appUrl}/webhooks/{topic}` (or `path`) the way Shopify does. */
export async function sendWebhook(
  appUrl: string,
  topic: string,
  payload: unknown,
  options: SendWebhookOptions,
): Promise<Response> {
  const body = JSON.stringify(payload);
  const hmac = options.hmac ?? webhookHmac(body, options.secret ?? "");
  return fetch(new URL(options.path ?? `/webhooks/${topic}`, appUrl), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": topic,
      "X-Shopify-Shop-Domain": options.shop,
      "X-Shopify-Hmac-Sha256": hmac,
      "X-Shopify-Webhook-Id": options.webhookId ?? randomUUID(),
      "X-Shopify-Event-Id": options.eventId ?? randomUUID(),
      "X-Shopify-Api-Version": options.apiVersion ?? SHOPIFY_API_VERSION,
      "X-Shopify-Triggered-At": new Date().toISOString(),
    },
    body,
  });
}
