// Hook called by app/connections when a Shopify customer connects (or reconnects) a service workspace.
// It re-queues the customer's orders that were skipped or waiting for a connection, and (once the backfill
// module lands) fetches their recent orders from the Admin API.
import type { PrismaClient } from "@prisma/client";

export interface CustomerConnected {
  shop: string;
  customerId: string;
}

export interface OnConnectResult {
  requeued: number;
}

/** Never throws into the OAuth callback: failures are logged and the merchant sees them on the Sync page. */
export async function onCustomerConnected(prisma: PrismaClient, event: CustomerConnected): Promise<OnConnectResult> {
  try {
    const records = await prisma.syncRecord.findMany({
      where: { shop: event.shop, customerId: event.customerId, state: { in: ["skipped", "waiting"] } },
      select: { id: true },
    });
    const ids = records.map((r) => r.id);
    if (ids.length === 0) return { requeued: 0 };
    const result = await prisma.job.updateMany({
      where: { recordId: { in: ids }, status: { in: ["done", "failed", "cancelled"] } },
      data: { status: "queued", runAt: new Date(), attempts: 0, lastError: null, leasedBy: null, leaseUntil: null },
    });
    return { requeued: result.count };
  } catch (error) {
    console.error("onCustomerConnected failed", { shop: event.shop, error: String(error) });
    return { requeued: 0 };
  }
}
