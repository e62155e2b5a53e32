// Hook called by app/connections when a Shopify customer connects (or reconnects) a service workspace:
// 1. their orders and shipments that were skipped ("customer has not connected a workspace") or are waiting for a
//    reconnection run again now;
// 2. their orders of the last N days are fetched from the Admin API and imported (a Backfill row shows progress).
// It only writes job, record-link and backfill rows; the worker does the rest. Never throws into the OAuth callback.
import type { PrismaClient } from "@prisma/client";
import { errorMessage } from "../lib/errors";
import { logger } from "../lib/logger.server";
import { startBackfill } from "./backfill.server";
import { requeueLatest, wakeJobs } from "./queue.server";
import { notifyWorkers } from "./signal.server";

export interface CustomerConnected {
  shop: string;
  customerId: string;
}

export interface OnConnectResult {
  requeued: number;
  backfillId?: string;
  error?: string;
}

export async function onCustomerConnected(
  prisma: PrismaClient,
  event: CustomerConnected,
  options: { now?: Date; backfill?: boolean } = {},
): Promise<OnConnectResult> {
  const now = options.now ?? new Date();
  try {
    const records = await prisma.syncRecord.findMany({
      where: { shop: event.shop, customerId: event.customerId, state: { in: ["skipped", "waiting", "pending"] } },
      select: { id: true },
    });
    let requeued = 0;
    for (const { id } of records) {
      if ((await requeueLatest(prisma, event.shop, id, now)) === "requeued") requeued += 1;
    }
    // Earlier jobs of the same records that wait too (an order's create behind its update) run now as well: jobs of
    // one order run in seq order, so a sleeping earlier job would hold the re-queued latest one back for hours.
    if (records.length > 0)
      await wakeJobs(prisma, { shop: event.shop, recordId: { in: records.map((r) => r.id) } }, now);
    const backfillId = options.backfill === false ? undefined : await startBackfill(prisma, { ...event, now });
    notifyWorkers();
    return { requeued, backfillId };
  } catch (error) {
    const message = errorMessage(error);
    logger("sync").error({ shop: event.shop, err: message }, "onCustomerConnected failed");
    return { requeued: 0, error: message };
  }
}
