// The app's install lifecycle for one shop. Uninstalling stops the shop's sync at once (the queue leases no job of
// an uninstalled shop, so nothing more is sent) and deletes its Shopify sessions; everything else is kept, because
// Shopify sends shop/redact 48 hours later only if the merchant does not come back. A reinstall (a new offline
// session) resumes the waiting jobs where they stopped.
import type { PrismaClient } from "@prisma/client";
import { clearUninstalled, writeSection } from "../db/shop-settings.server";
import { notifyWorkers } from "../sync/signal.server";

export async function onAppUninstalled(prisma: PrismaClient, shop: string, now = new Date()): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await writeSection(tx, shop, "install", { uninstalledAt: now });
    await tx.session.deleteMany({ where: { shop } });
  });
}

/** Called after Shopify's library stored a new session for the shop (afterAuth): the app is installed again. */
export async function onAppInstalled(prisma: PrismaClient, shop: string): Promise<boolean> {
  const resumed = await clearUninstalled(prisma, shop);
  if (resumed > 0) notifyWorkers();
  return resumed > 0;
}

/** app/scopes_update: the scopes the merchant granted now, on every stored session of the shop. */
export async function onScopesUpdated(prisma: PrismaClient, shop: string, scopes: unknown): Promise<number> {
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string" && /^[a-z_]{1,64}$/.test(s))) return 0;
  const result = await prisma.session.updateMany({ where: { shop }, data: { scope: scopes.join(",") } });
  return result.count;
}
