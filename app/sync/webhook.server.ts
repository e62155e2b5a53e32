// Shared by the sync webhooks.* routes: read the body once (bounded), verify, record durably (group commit),
// answer. Nothing else happens before the answer: no session is read (intake needs none), and workers are woken
// after it. The other topics verify through app/shopify/webhook.server.ts.
import { database } from "../db.server";
import { env } from "../env.server";
import { readBody } from "../lib/body-limit.server";
import { securityLog } from "../lib/security-log.server";
import { normalizeTopic, type VerifiedWebhook } from "../shopify/webhook.server";
import { createIntakeBatcher, type IntakeBatcher } from "./intake-batch.server";
import { parseShopifyJson } from "./mapping.server";
import { notifyWorkers } from "./signal.server";
import { verifyShopifyWebhook } from "../shopify/webhook-verify.server";

let batcher: IntakeBatcher | undefined;
// PGlite runs one statement at a time: one batch in flight lets the next one grow while it runs.
const intake = () => (batcher ??= createIntakeBatcher(database().prisma, { maxInFlight: database().kind === "postgres" ? 4 : 1 }));

/** The payload parsed again from the signed bytes keeping 64-bit ids exact (an id above 2^53 must not lose digits). */
export function exactPayload(webhook: VerifiedWebhook): unknown {
  try {
    return parseShopifyJson(new TextDecoder().decode(webhook.bytes));
  } catch {
    return webhook.payload; // Shopify's library parsed it already; keep its result
  }
}

/**
 * 413 for a body over the webhook limit, 400 for a malformed delivery or a topic that is not the route's, 401 for
 * a wrong HMAC (nothing stored in any of these cases); 200 only once the delivery, its record and its job are
 * committed; a database error answers 503 so Shopify delivers it again.
 */
export async function receiveSyncWebhook(request: Request, routeTopic: string): Promise<Response> {
  const body = await readBody(request, "webhook"); // read once: the HMAC and the JSON use the same bytes
  if (!body.ok) return body.response;
  const verified = verifyShopifyWebhook(request.headers, body.bytes, env().SHOPIFY_API_SECRET);
  if (!verified.ok) return new Response(null, { status: verified.status });
  const { shop, topic, webhookId, eventId } = verified.webhook;
  if (normalizeTopic(topic) !== normalizeTopic(routeTopic)) {
    securityLog().warn({ shop, topic, route: normalizeTopic(routeTopic), reason: "topic_mismatch" }, "webhook refused");
    return new Response(null, { status: 400 });
  }
  let payload: unknown;
  try {
    payload = parseShopifyJson(new TextDecoder().decode(body.bytes)); // 64-bit ids kept exact
  } catch {
    return new Response(null, { status: 400 });
  }
  try {
    const result = await intake().submit({ shop, topic, eventId, webhookId, payload });
    if (result.jobId) setImmediate(notifyWorkers);
    return new Response(null, { status: 200 });
  } catch {
    return new Response(null, { status: 503, headers: { "Retry-After": "1" } });
  }
}
