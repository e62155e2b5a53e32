// Shared by the sync webhooks.* routes: verify (app/shopify/webhook.server.ts: body read once and bounded, HMAC,
// topic, exact-id JSON), record durably (group commit), answer. Nothing else happens before the answer: no session
// is read (intake needs none), and workers are woken after it.
import { verifyWebhook } from "../shopify/webhook.server";
import { createIntakeBatcher, type IntakeBatcher, type IntakeDb } from "./intake-batch.server";
import { notifyWorkers } from "./signal.server";

export interface SyncIntake {
  /** Answers one delivery of a sync topic (orders/*, fulfillments/*). */
  receive(request: Request, routeTopic: string): Promise<Response>;
  /** Writes what is pending (shutdown). */
  flush(): Promise<void>;
}

/**
 * The intake of one process over its database: 413 for a body over the webhook limit, 400 for a malformed
 * delivery or a topic that is not the route's, 401 for a wrong HMAC (nothing stored in any of these cases); 200
 * only once the delivery, its record and its job are committed; a database error answers 503 so Shopify delivers
 * it again.
 */
export function createSyncIntake(db: IntakeDb, options: { postgres: boolean }): SyncIntake {
  // A batch grows while the one before it is written. PGlite runs one statement at a time; on PostgreSQL two
  // batches in flight took more deliveries/s than four did (fewer, larger statements: 0.70-0.79x the floor
  // against 0.69-0.72x, issue 25), and a delivery that finds nothing in flight is written at once.
  const batcher: IntakeBatcher = createIntakeBatcher(db, { maxInFlight: options.postgres ? 2 : 1 });
  return {
    async receive(request, routeTopic) {
      const check = await verifyWebhook(request, routeTopic);
      if (!check.ok) return check.response;
      const { shop, topic, eventId, webhookId, payload } = check.webhook;
      try {
        const result = await batcher.submit({ shop, topic, eventId, webhookId, payload });
        if (result.jobId) setImmediate(notifyWorkers);
        return new Response(null, { status: 200 });
      } catch {
        return new Response(null, { status: 503, headers: { "Retry-After": "1" } });
      }
    },
    flush: () => batcher.flush(),
  };
}
