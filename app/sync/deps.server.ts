// The worker's real collaborators: settings and grants from app/connections (decrypted), the service client with
// a short in-call retry budget (the queue does the long-term retrying with leases and backoff), the Admin API over
// the shop's offline session, and a pino logger. Tests build their own SyncDeps instead.
import type { PrismaClient } from "@prisma/client";
import { createServiceContext, importOrder, importShipment, type ServiceSettings } from "../service/client.server";
import { loadServiceSettings } from "../connections/settings.server";
import { grantStoreFor } from "../connections/prisma-grant-store.server";
import { logger } from "../lib/logger.server";
import { adminGraphqlViaSession } from "./backfill.server";
import type { SyncDeps, SyncLogger } from "./job-context.server";

/** Worker logs: ids, kinds, states and failure kinds only — never tokens, secrets or payload bodies. */
export const syncLog = () => logger("sync");

export function createSyncDeps(prisma: PrismaClient, options: { postgres: boolean; logger?: SyncLogger }): SyncDeps {
  const log = options.logger ?? syncLog();
  const context = (settings: ServiceSettings) =>
    createServiceContext(settings, {
      timeoutMs: 15_000,
      retry: { maxAttempts: 3, maxElapsedMs: 20_000 },
      logger: { debug: (o, m) => log.debug(o, m), warn: (o, m) => log.warn(o, m) },
    });
  return {
    prisma,
    logger: log,
    loadSettings: (shop) => loadServiceSettings(prisma, shop),
    grantStore: (grant) => grantStoreFor(prisma, { shop: grant.shop, customerId: grant.customerId }, { advisoryLock: options.postgres }),
    importOrder: (settings, store, request, opts) => importOrder(context(settings), store, request, opts),
    importShipment: (settings, store, request, opts) => importShipment(context(settings), store, request, opts),
    adminGraphql: adminGraphqlViaSession(prisma),
  };
}
