// One rate budget per service client for the whole process, shared by the sync worker's imports (when it runs in
// this process) and the storefront's Continue cart handoffs: the service limits the client, not the caller, so a
// flood of handoffs must queue behind the same budget or it would earn the shop 429s that hold its imports back.
// Handoffs never wait in line (app/sync/scheduler.server.ts, tryAcquire). A worker in its own process
// (`npm run worker`) has its own copy; the service's RateLimit answers correct both models (docs/security.md).
import type { ServiceGate } from "../handoff/flow.server";
import { guardedFetch, policyFromEnv, serviceBaseUrl } from "../service/client.server";
import { clientKeyOf, interactiveSlot } from "../sync/scheduled-fetch.server";
import { RateScheduler } from "../sync/scheduler.server";

let shared: RateScheduler | undefined;

export function serviceScheduler(): RateScheduler {
  shared ??= new RateScheduler();
  return shared;
}

/** Continue cart's way into that budget: a slot now or a refusal, through the same address guard as every call. */
export const handoffGate: ServiceGate = {
  open: (settings, inner) =>
    interactiveSlot(serviceScheduler(), clientKeyOf(serviceBaseUrl(settings), settings.clientId), inner ?? guardedFetch(policyFromEnv())),
};
