// The worker's run of a `flow_trigger` job (queued by flow-trigger.server.ts when a record fails): the payload
// captured at that moment, sent with `flowTriggerReceive` through Shopify's Admin API client; a failed call backs
// off like any job. A record erased meanwhile (customers/redact, shop/redact) sends nothing.
import type { Job } from "@prisma/client";
import { errorMessage } from "../lib/errors";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { FLOW_TRIGGER_HANDLE, FLOW_TRIGGER_MUTATION, numericId, type FlowTriggerPayload } from "./flow-trigger.server";
import type { Resolved } from "./job-context.server";
import { backoffMs } from "../lib/backoff";
import { completeJob, failJob, rescheduleJob } from "./queue.server";

/** Sends one trigger. Throws with plain words when Shopify did not take it (the queue retries). */
export async function sendFlowTrigger(
  adminGraphql: AdminGraphql,
  shop: string,
  payload: FlowTriggerPayload,
): Promise<void> {
  const answer = (await adminGraphql(shop, FLOW_TRIGGER_MUTATION, { handle: FLOW_TRIGGER_HANDLE, payload })) as {
    data?: { flowTriggerReceive?: { userErrors?: { message?: string }[] } | null };
    errors?: unknown;
  } | null;
  if (answer?.errors) throw new Error("Shopify Flow refused the trigger (GraphQL error)");
  const result = answer?.data?.flowTriggerReceive;
  if (!result) throw new Error("Shopify Flow gave no answer to the trigger");
  const [first] = result.userErrors ?? [];
  if (first) throw new Error(`Shopify Flow refused the trigger: ${String(first.message ?? "").slice(0, 200)}`);
}

/** A queued trigger's payload, ids as strings (jobs queued before ids were strings carry numbers); null if none. */
function withIdsAsStrings(
  trigger: Omit<FlowTriggerPayload, "order_id" | "customer_id"> & { order_id?: unknown; customer_id?: unknown },
): FlowTriggerPayload | null {
  const id = (value: unknown) =>
    typeof value === "string" || typeof value === "number" ? numericId(String(value)) : undefined;
  const orderId = id(trigger.order_id);
  if (orderId === undefined) return null;
  const customerId = id(trigger.customer_id);
  return {
    ...trigger,
    order_id: orderId,
    ...(customerId === undefined ? {} : { customer_id: customerId }),
  } as FlowTriggerPayload;
}

/** The worker's run of a `flow_trigger` job. */
export async function runFlowTriggerJob(deps: Resolved, job: Job): Promise<void> {
  const { recordId, trigger } = (job.payload ?? {}) as {
    recordId?: unknown;
    trigger?: Parameters<typeof withIdsAsStrings>[0];
  };
  const record =
    typeof recordId === "string"
      ? await deps.prisma.syncRecord.findFirst({ where: { id: recordId, shop: job.shop }, select: { id: true } })
      : null;
  // Erased meanwhile (a customer or shop redaction): nothing of it is sent anywhere any more.
  const payload = record && trigger ? withIdsAsStrings(trigger) : null;
  if (!payload) {
    await completeJob(deps.prisma, job, deps.now());
    return;
  }
  if (!deps.adminGraphql) {
    // A worker set up without the Admin API (scripts, tests): retrying cannot help.
    await failJob(deps.prisma, job, "no Admin API client configured for Shopify Flow", deps.now());
    return;
  }
  try {
    await sendFlowTrigger(deps.adminGraphql, job.shop, payload);
  } catch (error) {
    const message = errorMessage(error).slice(0, 300);
    deps.logger.warn({ jobId: job.id, recordId: record!.id, err: message }, "flow trigger failed");
    if (job.attempts >= job.maxAttempts) await failJob(deps.prisma, job, message, deps.now());
    else
      await rescheduleJob(deps.prisma, job, {
        runAt: new Date(deps.now().getTime() + backoffMs(job.attempts, undefined, deps.random)),
        error: message,
      });
    return;
  }
  deps.logger.info({ jobId: job.id, recordId: record!.id }, "flow trigger sent");
  await completeJob(deps.prisma, job, deps.now());
}
