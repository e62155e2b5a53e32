// Shared by the webhooks.* routes. The sync topics: verify, record durably (group commit), answer; nothing else
// happens before the answer: no session is read (intake needs none), and workers are woken after it.
import { database } from "../db.server";
import { env } from "../env.server";
import { authenticate } from "../shopify.server";
import { createIntakeBatcher, type IntakeBatcher } from "./intake-batch.server";
import { parseShopifyJson } from "./mapping.server";
import { notifyWorkers } from "./signal.server";
import { verifyShopifyWebhook } from "./webhook-verify.server";

let batcher: IntakeBatcher | undefined;
// PGlite runs one statement at a time: one batch in flight lets the next one grow while it runs.
const intake = () => (batcher ??= createIntakeBatcher(database().prisma, { maxInFlight: database().kind === "postgres" ? 4 : 1 }));

/**
 * 400 for a malformed delivery, 401 for a wrong HMAC (nothing stored either way); 200 only once the delivery,
 * its record and its job are committed; a database error answers 503 so Shopify delivers it again.
 */
export async function receiveSyncWebhook(request: Request): Promise<Response> {
  const raw = new Uint8Array(await request.arrayBuffer()); // read once: the HMAC and the JSON use the same bytes
  const verified = verifyShopifyWebhook(request.headers, raw, env().SHOPIFY_API_SECRET);
  if (!verified.ok) return new Response(null, { status: verified.status });
  let payload: unknown;
  try {
    payload = parseShopifyJson(new TextDecoder().decode(raw)); // 64-bit ids kept exact
  } catch {
    return new Response(null, { status: 400 });
  }
  const { shop, topic, webhookId, eventId } = verified.webhook;
  try {
    const result = await intake().submit({ shop, topic, eventId, webhookId, payload });
    if (result.jobId) setImmediate(notifyWorkers);
    return new Response(null, { status: 200 });
  } catch {
    return new Response(null, { status: 503, headers: { "Retry-After": "1" } });
  }
}

/**
 * For the other (rare) topics: Shopify's library verifies the HMAC (401 otherwise, nothing read further); the
 * payload is then parsed again from the same bytes keeping 64-bit ids exact (an id above 2^53 must not lose digits).
 */
export async function verifyWebhook(request: Request) {
  const raw = request.clone().text();
  const verified = await authenticate.webhook(request);
  let payload: unknown = verified.payload;
  try {
    payload = parseShopifyJson(await raw);
  } catch {
    // authenticate.webhook parsed it already; keep its result
  }
  return { ...verified, payload };
}
