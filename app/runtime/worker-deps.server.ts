// The worker's real collaborators: settings and grants from app/connections (decrypted), the service client with
// a short in-call retry budget (the queue does the long-term retrying with leases and backoff), the Admin API through
// Shopify's library, and a pino logger. Tests build their own SyncDeps instead.
import type { PrismaClient } from "@prisma/client";
import {
  createServiceContext,
  guardedFetch,
  importOrder,
  importShipment,
  policyFromEnv,
  serviceBaseUrl,
  type GrantStore,
  type ServiceSettings,
} from "../service/client.server";
import { loadServiceSettings } from "../connections/settings-loader.server";
import { grantStoreFor } from "../connections/prisma-grant-store.server";
import { logger } from "../lib/logger.server";
import { unauthenticated } from "../shopify.server";
import { adminGraphqlVia } from "../shopify/admin-api.server";
import type { SyncDeps, SyncLogger } from "../sync/job-context.server";
import { clientKeyOf, scheduledFetch, serviceScheduler, type RateScheduler } from "../service/client.server";
import { shareServiceRate } from "../sync/shared-rate.server";
import { pacedFetch, type Pace } from "../sync/pace.server";

/** Worker logs: ids, kinds, states and failure kinds only — never tokens, secrets or payload bodies. */
export const syncLog = () => logger("sync");

export function createSyncDeps(
  prisma: PrismaClient,
  options: { postgres: boolean; logger?: SyncLogger; scheduler?: RateScheduler; pace?: Pace },
): SyncDeps {
  const log = options.logger ?? syncLog();
  // One rate budget per service client for this whole process, shared with Continue cart's handoffs
  // (app/service/rate-limiter.server.ts, serviceScheduler); requests queue in it per shop (fairness).
  // On PostgreSQL that budget is the one every process shares (app/sync/shared-rate.server.ts).
  if (options.scheduler === undefined && options.postgres) shareServiceRate(prisma);
  const scheduler = options.scheduler ?? serviceScheduler();
  // The worker hands the import its grant store, not the shop: remember whose store it is.
  const shopOf = new WeakMap<GrantStore, string>();
  // Inside the scheduler, each answer's time goes to the worker's pace (app/sync/pace.server.ts), not the slot's wait.
  const paced = (settings: ServiceSettings) =>
    options.pace
      ? pacedFetch(
          options.pace,
          clientKeyOf(serviceBaseUrl(settings), settings.clientId),
          guardedFetch(policyFromEnv()),
        )
      : guardedFetch(policyFromEnv());
  const context = (settings: ServiceSettings, store: GrantStore) =>
    createServiceContext(settings, {
      // Inside the scheduler, the same address guard as every other service call (docs/security.md).
      fetch: scheduledFetch(
        scheduler,
        clientKeyOf(serviceBaseUrl(settings), settings.clientId),
        shopOf.get(store) ?? "",
        paced(settings),
        options.pace && ((seconds) => options.pace!.observeWait(seconds)),
      ),
      timeoutMs: 15_000,
      retry: { maxAttempts: 3, maxElapsedMs: 20_000 },
      logger: { debug: (o, m) => log.debug(o, m), warn: (o, m) => log.warn(o, m) },
    });
  return {
    prisma,
    logger: log,
    loadSettings: (shop, row) => loadServiceSettings(prisma, shop, undefined, { row }),
    grantStore: (grant) => {
      const store = grantStoreFor(
        prisma,
        { shop: grant.shop, customerId: grant.customerId },
        { advisoryLock: options.postgres },
      );
      shopOf.set(store, grant.shop);
      return store;
    },
    importOrder: (settings, store, request, opts) => importOrder(context(settings, store), store, request, opts),
    importShipment: (settings, store, request, opts) => importShipment(context(settings, store), store, request, opts),
    adminGraphql: adminGraphqlVia(unauthenticated.admin),
  };
}
