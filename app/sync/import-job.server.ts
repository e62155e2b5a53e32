// One order or shipment job: map Shopify's payload, decide where it goes (its customer's workspace) and whether it
// can go now, send it through the service client, and turn the outcome (or the failure) into the record's next
// state, in words a merchant can read (app/sync/reasons.ts).
import { Prisma, type Job, type PrismaClient, type SyncRecord } from "@prisma/client";
import { rawQuery } from "../db/sql.server";
import {
  INVALID_GRANT_REASON,
  NO_REFRESH_REASON,
  ORIGIN_CHANGED_REASON,
  UNREADABLE_REASON,
  type Failure,
} from "../service/client.server";
import type { FailureFacts, GrantReason, ReasonDetails } from "./reasons";
import {
  contentHash,
  customerIdOf,
  idempotencyKey,
  mapFulfillment,
  mapOrder,
  meaningHash,
  orderKeyOf,
  type Mapped,
  type ShopifyFulfillment,
  type ShopifyOrder,
  type SyncKind,
} from "./mapping.server";
import { backoffMs } from "../lib/backoff";
import { completeJob, failJob, jobRef, requeueJob, requeueLatest, type LeasedJob } from "./queue.server";
import { errorMessage } from "../lib/errors";
import { importAttempts, importLagSeconds, imports } from "../lib/metrics.server";
import type { Resolved, Route, RoutedGrant } from "./job-context.server";
import { attemptInsert, recordAttempt } from "./attempt-log.server";
import {
  ensureRecord,
  giveUp,
  IMPORTED,
  recordFailedSend,
  recordImported,
  retryLater,
  settle,
  transition,
  wait,
} from "./record-state.server";

/** How long work that waits for a person (reconnect, settings) sleeps before looking again on its own. */
const WAIT_FOR_PERSON_MS = 6 * 3600_000;
const WAIT_FOR_SETTINGS_MS = 10 * 60_000;
const WAIT_FOR_ORDER_MS = 60_000;

async function payloadOf(deps: Resolved, job: LeasedJob): Promise<unknown> {
  // The lease read the delivery already (leaseJobs); a job that reached here otherwise reads it now.
  if (job.deliveryFound) return job.deliveryPayload;
  if (job.deliveryId && job.deliveryFound === undefined) {
    const [delivery] = await deps.prisma.$queryRaw<
      { payload: unknown }[]
    >`SELECT payload FROM "WebhookDelivery" WHERE id = ${job.deliveryId}`;
    if (delivery) return delivery.payload;
  }
  return (job.payload as { data?: unknown } | null)?.data;
}

export async function runImportJob(deps: Resolved, job: Job, kind: SyncKind) {
  const payload = await payloadOf(deps, job);
  const p = (payload ?? {}) as Record<string, unknown>;
  const mapped: Mapped<unknown> =
    kind === "order" ? mapOrder(p as unknown as ShopifyOrder) : mapFulfillment(p as unknown as ShopifyFulfillment);
  const externalId = String(p.id ?? "");
  const orderId = String((kind === "order" ? p.id : p.order_id) ?? "");
  if (!externalId || !orderId) {
    await failJob(deps.prisma, job, "the payload has no id", deps.now());
    return;
  }
  let record = await ensureRecord(deps, job, kind, externalId, orderId);
  const stored = record.customerId;

  // Shopify does not deliver in order (a failed delivery is retried later): content older than what was already
  // handled for this resource is not sent, or it would overwrite the newer content at the service.
  const sourceAt = sourceUpdatedAt(p);
  if (sourceAt && record.sourceUpdatedAt && sourceAt < record.sourceUpdatedAt) {
    deps.logger.info({ ...jobRef(job), recordId: record.id }, "older than the content already handled; not sent");
    await completeJob(deps.prisma, job, deps.now());
    return;
  }
  // Written with the outcome that settles this content (sent, already there, skipped or failed).
  const newer =
    sourceAt && (!record.sourceUpdatedAt || sourceAt > record.sourceUpdatedAt) ? { sourceUpdatedAt: sourceAt } : {};

  // Which customer (and so which workspace): the order's own customer, or for a shipment its order's.
  let customerId: string | undefined;
  let orderRecord: SyncRecord | null = null;
  if (kind === "order") {
    customerId = customerIdOf(p as unknown as ShopifyOrder);
  } else {
    orderRecord = await deps.prisma.syncRecord.findUnique({
      where: { shop_kind_externalId: { shop: job.shop, kind: "order", externalId: orderId } },
    });
    customerId = orderRecord?.customerId ?? undefined;
  }
  if (customerId && record.customerId !== customerId) {
    // Written with the next update of the record (every path below makes one).
    record = { ...record, customerId };
  }

  if (!mapped.ok)
    return settle(
      deps,
      job,
      record,
      mapped.state,
      { reasonCode: mapped.reasonCode, reason: mapped.reason, reasonDetails: mapped.reasonDetails },
      newer,
    );

  if (kind === "order" && !customerId) return settle(deps, job, record, "skipped", "no_customer", newer);
  if (kind === "shipment") {
    if (!orderRecord || !IMPORTED.has(orderRecord.state) || !orderRecord.workspaceId) {
      if (orderRecord && (orderRecord.state === "skipped" || orderRecord.state === "failed")) {
        const detail = orderRecord.reason ?? orderRecord.state;
        const order = { code: orderRecord.reasonCode, details: orderRecord.reasonDetails as ReasonDetails | null };
        return settle(deps, job, record, "skipped", { code: "order_not_imported", details: { detail, order } }, newer);
      }
      return wait(deps, job, record, "order_pending", WAIT_FOR_ORDER_MS);
    }
  }

  const route = await routeCustomer(deps.prisma, job.shop, customerId!);
  if (route.kind === "not_connected") {
    if (!(await settle(deps, job, record, "skipped", "not_connected", newer))) return;
    // The customer may have connected between the grant read and the skip: onCustomerConnected then ran before the
    // skip was written and did not see it. Looking again after writing it closes that gap (one of the two sees the other).
    if ((await routeCustomer(deps.prisma, job.shop, customerId!)).kind !== "not_connected") {
      await requeueJob(deps.prisma, { id: job.id, status: "done" }, deps.now());
    }
    return;
  }
  if (route.kind === "needs_reconnect") {
    return wait(
      deps,
      job,
      record,
      {
        code: "needs_reconnect",
        details: { detail: route.grant.statusReason, grantReason: grantReasonOf(route.grant.statusReason) },
      },
      WAIT_FOR_PERSON_MS,
    );
  }

  if (kind === "shipment" && orderRecord!.workspaceId !== route.grant.workspaceId) {
    // The customer reconnected to another workspace since the order was imported: the order goes there first
    // (the service would answer order_not_found for ever), then this shipment.
    const order = await requeueLatest(deps.prisma, job.shop, orderRecord!.id, deps.now(), { unlessQueued: true });
    if (order === "requeued" || order === "queued" || order === "running") {
      return wait(deps, job, record, "order_moved", WAIT_FOR_ORDER_MS);
    }
  }

  const settings = await deps.loadSettings(job.shop, (job as LeasedJob).serviceRow);
  if (!settings) return wait(deps, job, record, "settings_missing", WAIT_FOR_SETTINGS_MS);

  const hash = contentHash(mapped.request);
  const meaning = meaningHash(mapped.request);
  if (record.sentHash === meaning && record.workspaceId === route.grant.workspaceId && IMPORTED.has(record.state)) {
    // this very content is already at the service
    const data = { ...(record.customerId !== stored ? { customerId: record.customerId } : {}), ...newer };
    const done = await transition(
      deps,
      (tx) => completeJob(tx, job, deps.now()),
      Object.keys(data).length > 0 ? { id: record.id, redactions: record.redactions, data } : undefined,
    );
    if (done) imports.series(kind, "unchanged").inc();
    return;
  }
  // The same content on top of the same last accepted import gives the same key (a retry or a takeover is replayed);
  // content that comes back after another version was accepted (A → B → A) gets a new one and is applied again.
  const key = idempotencyKey(job.shop, kind, externalId, hash, record.importedAt);
  const send = kind === "order" ? deps.importOrder : deps.importShipment;
  const outcome = await send(settings, deps.grantStore(route.grant), mapped.request, { idempotencyKey: key });
  importAttempts.series(kind, outcome.ok ? "ok" : outcome.kind).inc();
  if (!outcome.ok) {
    await recordFailedSend(deps, job, record, hash);
    await recordAttempt(deps.prisma, job, record.id, outcome, deps.now()).catch((error) =>
      deps.logger.warn({ ...jobRef(job), err: errorMessage(error) }, "attempt not logged"),
    );
    return handleFailure(deps, job, record, kind, outcome);
  }

  // The service's own word when it uses ours (a replay repeats the first answer); otherwise: sent before → update.
  const status = outcome.data.status;
  const state =
    status === "imported" || status === "updated"
      ? status
      : record.sentHash && record.workspaceId === route.grant.workspaceId
        ? "updated"
        : "imported";
  // Job done, record written, attempt logged and, for an order, its waiting shipments woken: one statement.
  const { recorded, sleepingShipments } = await recordImported(
    deps,
    job,
    record.id,
    {
      state,
      sentHash: meaning,
      contentHash: hash,
      workspaceId: route.grant.workspaceId,
      customerId: record.customerId,
      redactions: record.redactions,
      serviceId: outcome.data.id ?? null,
      serviceStatus: status,
      attempts: job.attempts,
      sourceUpdatedAt: newer.sourceUpdatedAt,
    },
    {
      attempt: attemptInsert(job, record.id, outcome, deps.now()),
      order: kind === "order" ? { orderId, orderKey: orderKeyOf(orderId) } : undefined,
    },
  );
  if (!recorded) return;
  imports.series(kind, state).inc();
  if (job.createdAt instanceof Date)
    importLagSeconds.series(kind).observe(Math.max(0, Date.now() - job.createdAt.getTime()) / 1000);
  deps.logger.info({ ...jobRef(job), recordId: record.id, kind, state, replayed: outcome.replayed }, "imported");
  // Shipments skipped for this order, or waiting for it, run again.
  for (const id of sleepingShipments)
    await requeueLatest(deps.prisma, job.shop, id, deps.now(), { unlessQueued: true });
}

/** Shopify's `updated_at` of a webhook payload (backfill payloads have none). */
function sourceUpdatedAt(payload: Record<string, unknown>): Date | undefined {
  const value = payload.updated_at;
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

const WAIT_FOR_RECONNECT = new Set<Failure["kind"]>(["reconnect_required", "invalid_token", "insufficient_scope"]);
// With content-derived keys the same key always carries the same bytes: a conflict can only mean "still in flight".
const RETRY = new Set<Failure["kind"]>([
  "rate_limited",
  "server_error",
  "network_error",
  "timeout",
  "idempotency_conflict",
  "replayed_request",
]);

async function handleFailure(deps: Resolved, job: Job, record: SyncRecord, kind: SyncKind, outcome: Failure) {
  deps.logger.warn(
    { ...jobRef(job), recordId: record.id, kind, failure: outcome.kind, status: outcome.status },
    "import failed",
  );
  if (WAIT_FOR_RECONNECT.has(outcome.kind)) {
    return wait(
      deps,
      job,
      record,
      { code: "reconnect_required", details: { detail: outcome.message, failure: failureFacts(outcome) } },
      WAIT_FOR_PERSON_MS,
    );
  }
  if (outcome.kind === "order_not_found") {
    // Never dropped, and no attempt used up; waits that do not count attempts would never grow, so the job keeps
    // its own count of order_not_found answers (5 s, 10 s, 20 s … up to 15 min).
    const payload = (job.payload ?? {}) as Record<string, unknown>;
    const times = (typeof payload.orderNotFound === "number" ? payload.orderNotFound : 0) + 1;
    const delay = backoffMs(times, outcome.retryAfterMs, deps.random, 5_000);
    return wait(deps, job, record, "order_not_found", delay, {
      ...payload,
      orderNotFound: times,
    } as Prisma.InputJsonValue);
  }
  if (RETRY.has(outcome.kind) || outcome.retryable) {
    if (job.attempts >= job.maxAttempts) {
      return giveUp(deps, job, record, {
        code: "attempts_exhausted",
        details: { attempts: job.attempts, detail: outcome.message, failure: failureFacts(outcome) },
      });
    }
    const runAt = new Date(deps.now().getTime() + backoffMs(job.attempts, outcome.retryAfterMs, deps.random));
    return retryLater(deps, job, record, outcome.message, runAt, failureFacts(outcome));
  }
  await giveUp(deps, job, record, {
    code: "rejected",
    details: { detail: outcome.message, failure: failureFacts(outcome) },
  });
}

/** A failure as data for the record (app/sync/reasons.ts): its kind, status and the service's own words. */
function failureFacts(outcome: Failure): FailureFacts {
  return { kind: outcome.kind, status: outcome.status, serviceMessage: outcome.serviceMessage };
}

/** The grant reasons the app itself sets, as codes; any other is the service's words (quoted as such). */
function grantReasonOf(statusReason: string | null): GrantReason | undefined {
  if (statusReason === UNREADABLE_REASON) return "unreadable";
  if (statusReason === ORIGIN_CHANGED_REASON) return "origin_changed";
  if (statusReason === NO_REFRESH_REASON) return "no_refresh_token";
  if (statusReason === INVALID_GRANT_REASON) return "invalid_grant";
  return undefined;
}

/** Which workspace an order goes to: the one the ordering customer connected (CustomerGrant by shop + customer id). */
export async function routeCustomer(prisma: PrismaClient, shop: string, customerId: string): Promise<Route> {
  // Once per job: SQL, like the worker's other per-job statements (docs/decisions/0002).
  const [grant] = await rawQuery<RoutedGrant>(
    prisma,
    Prisma.sql`SELECT id, shop, "customerId", "workspaceId", status, "statusReason" FROM "CustomerGrant"
      WHERE shop = ${shop} AND "customerId" = ${customerId}`,
  );
  if (!grant) return { kind: "not_connected" };
  if (grant.status !== "active") return { kind: "needs_reconnect", grant };
  return { kind: "grant", grant };
}
