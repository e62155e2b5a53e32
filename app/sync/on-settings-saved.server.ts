// Hook called when a merchant saves the service settings: imports that waited for them run now rather than on
// their 10-minute timer, so a merchant who has just set the app up sees orders arrive at once.
import type { PrismaClient } from "@prisma/client";
import { wakeJobs } from "./queue.server";
import { notifyWorkers } from "./signal.server";
import { SETTINGS_MISSING_REASON } from "./worker.server";

export async function onSettingsSaved(prisma: PrismaClient, shop: string, now = new Date()): Promise<number> {
  const waiting = await prisma.syncRecord.findMany({
    where: { shop, state: "waiting", reason: SETTINGS_MISSING_REASON },
    select: { id: true },
  });
  if (waiting.length === 0) return 0;
  const woken = await wakeJobs(prisma, { shop, recordId: { in: waiting.map((r) => r.id) } }, now);
  notifyWorkers();
  return woken;
}
