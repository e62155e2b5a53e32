// Hook called when a merchant saves the service settings: imports that waited for them run now rather than on
// their 10-minute timer (found by their reason code, never by its words), so a merchant who has just set the app up sees orders arrive at once.
import type { PrismaClient } from "@prisma/client";
import { wakeJobs } from "./queue.server";
import { notifyWorkers } from "./signal.server";

export async function onSettingsSaved(prisma: PrismaClient, shop: string, now = new Date()): Promise<number> {
  const waiting = await prisma.syncRecord.findMany({
    where: { shop, state: "waiting", reasonCode: "settings_missing" },
    select: { id: true },
  });
  if (waiting.length === 0) return 0;
  const woken = await wakeJobs(prisma, { shop, recordId: { in: waiting.map((r) => r.id) } }, now);
  notifyWorkers();
  return woken;
}
