// Pausing and resuming a shop's sync (the sync log's primary action). Plain functions over Prisma, scoped by shop;
// no Remix. The log itself, retries and resolving are in app/admin/.
import type { PrismaClient } from "@prisma/client";
import { readSections, writeSection } from "../db/shop-settings.server";
import { notifyWorkers } from "./signal.server";

/** Whether the shop's sync is paused. */
export async function isSyncPaused(prisma: PrismaClient, shop: string): Promise<boolean> {
  return (await readSections(prisma, shop, "sync"))?.syncPaused ?? false;
}

export type SyncActionResult = { ok: true; message: string } | { ok: false; message: string };

/** Pause or resume the shop's sync: paused work stays queued, nothing is dropped. */
export async function setSyncPaused(prisma: PrismaClient, shop: string, paused: boolean): Promise<SyncActionResult> {
  await writeSection(prisma, shop, "sync", { syncPaused: paused });
  if (!paused) notifyWorkers();
  return { ok: true, message: paused ? "Sync paused. New orders are recorded and wait." : "Sync resumed." };
}
