// The sync webhooks' intake (orders/*, fulfillments/*), from the request to "stored": verify
// (app/shopify/webhook.server.ts: body read once and bounded, HMAC, topic, exact-id JSON), keep what the sync needs
// (./minimise.server.ts), hand it to the group-commit batcher (./intake-batcher.server.ts), which writes it with the
// intake statement (./intake-write.server.ts), answer, count and log. Nothing else happens before the answer: no
// session is read (intake needs none), and workers are woken after it.
import { noteWrite } from "../db/health.server";
import type { Db } from "../db/sql.server";
import { errorName } from "../lib/errors";
import { logger } from "../lib/logger.server";
import { webhookAnswerSeconds, webhookDeliveries, type CountSeries, type ObserveSeries } from "../lib/metrics.server";
import { topicLabel, verifyWebhook } from "../shopify/webhook.server";
import { createIntakeBatcher, type IntakeBatcher } from "./intake-batcher.server";
import { notifyWorkers } from "./signal.server";

export interface SyncIntake {
  /** Answers one delivery of a sync topic (orders/*, fulfillments/*). */
  receive(request: Request, routeTopic: string): Promise<Response>;
  /** Writes what is pending (shutdown). */
  flush(): Promise<void>;
}

/** A topic's metric series, bound once (the route's topic is one of four). */
interface TopicSeries {
  accepted: CountSeries;
  duplicate: CountSeries;
  unavailable: CountSeries;
  answer: ObserveSeries;
}

/** The driver's error code (ECONNREFUSED, 57P01…) or class: a driver's message can carry the connection string. */
const failureOf = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : errorName(error);
};

/**
 * The intake of one process over its database: 413 for a body over the webhook limit, 400 for a malformed
 * delivery or a topic that is not the route's, 401 for a wrong HMAC (nothing stored in any of these cases); 200
 * only once the delivery, its record and its job are committed; a database error answers 503 so Shopify delivers
 * it again. Each delivery is logged with its webhook id and, when it queued one, its job id (the worker's lines
 * about the job carry both), so one order can be followed from intake to import.
 */
export function createSyncIntake(db: Db, options: { postgres: boolean }): SyncIntake {
  // A batch grows while the one before it is written. PGlite runs one statement at a time; on PostgreSQL two
  // batches in flight took more deliveries/s than four did (fewer, larger statements: 0.70-0.79x the floor
  // against 0.69-0.72x, issue 25), and a delivery that finds nothing in flight is written at once.
  const batcher: IntakeBatcher = createIntakeBatcher(db, { maxInFlight: options.postgres ? 2 : 1 });
  const log = logger("sync");
  const byTopic = new Map<string, TopicSeries>();
  const seriesOf = (routeTopic: string): TopicSeries => {
    let series = byTopic.get(routeTopic);
    if (!series) {
      const topic = topicLabel(routeTopic);
      series = {
        accepted: webhookDeliveries.series(topic, "accepted", ""),
        duplicate: webhookDeliveries.series(topic, "duplicate", ""),
        unavailable: webhookDeliveries.series(topic, "unavailable", ""),
        answer: webhookAnswerSeconds.series(topic),
      };
      byTopic.set(routeTopic, series);
    }
    return series;
  };
  return {
    async receive(request, routeTopic) {
      const started = performance.now();
      const check = await verifyWebhook(request, routeTopic);
      if (!check.ok) return check.response;
      const { shop, topic, eventId, webhookId, payload } = check.webhook;
      const series = seriesOf(routeTopic);
      try {
        const result = await batcher.submit({ shop, topic, eventId, webhookId, payload });
        noteWrite();
        if (result.jobId) setImmediate(notifyWorkers);
        (result.duplicate ? series.duplicate : series.accepted).inc();
        series.answer.observe((performance.now() - started) / 1000);
        log.info(
          {
            webhookId,
            eventId,
            topic,
            shop,
            deliveryId: result.deliveryId,
            jobId: result.jobId,
            duplicate: result.duplicate,
          },
          "webhook stored",
        );
        return new Response(null, { status: 200 });
      } catch (error) {
        noteWrite(error); // a full disk: not ready meanwhile (app/db/health.server.ts)
        series.unavailable.inc();
        series.answer.observe((performance.now() - started) / 1000);
        log.warn(
          { webhookId, eventId, topic, shop, err: failureOf(error) },
          "webhook not stored: answered 503, Shopify delivers it again",
        );
        return new Response(null, { status: 503, headers: { "Retry-After": "1" } });
      }
    },
    flush: () => batcher.flush(),
  };
}
