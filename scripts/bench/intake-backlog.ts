// The drain benches' backlog: orders queued at once through the app's own intake, and the wait until the
// worker has settled each of them.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { createIntakeBatcher } from "../../app/sync/intake-batcher.server";
import { orderBody } from "./common";

export async function queueOrders(prisma: PrismaClient, shop: string, count: number): Promise<string[]> {
  const batcher = createIntakeBatcher(prisma, { maxItems: 200 });
  const results = await Promise.all(
    Array.from({ length: count }, () =>
      batcher.submit({ shop, topic: "orders/create", eventId: randomUUID(), payload: JSON.parse(orderBody()) }),
    ),
  );
  return results.map((r) => r.jobId!);
}

export async function waitDone(prisma: PrismaClient, jobIds: string[], timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const done = await prisma.job.count({ where: { id: { in: jobIds }, status: { in: ["done", "failed"] } } });
    if (done === jobIds.length) return Date.now();
    if (Date.now() - started > timeoutMs) throw new Error(`drain timed out: ${done}/${jobIds.length}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
