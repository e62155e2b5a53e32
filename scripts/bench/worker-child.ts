// A sync worker process for the bench: the real worker loop and rate scheduler against the emulator, with the
// customers' tokens handed in (BENCH_GRANTS, or a file named by BENCH_GRANTS_FILE when there are many) instead of
// read from encrypted rows. PostgreSQL (DATABASE_URL) or a PGlite data directory (BENCH_PGLITE_DIR). Prints `ready`.
import { readFileSync } from "node:fs";
import { createServiceContext, importOrder, importShipment, serviceOrigins, type GrantStore, type ServiceSettings } from "../../app/service/client.server";
import { MemoryGrantStore } from "../../dev/memory-grant-store";
import { openDatabase } from "../../app/db/connect.server";
import { clientKeyOf, scheduledFetch } from "../../app/sync/scheduled-fetch.server";
import { RateScheduler } from "../../app/sync/scheduler.server";
import { startWorker } from "../../app/sync/worker.server";

interface GrantIn {
  shop: string;
  customerId: string;
  workspaceId: string;
  accessToken: string;
  refreshToken: string;
}

const url = process.env.BENCH_SERVICE_URL!;
const settings: ServiceSettings = {
  environment: "sandbox",
  baseUrl: url,
  sandboxBaseUrl: url,
  authUrl: url,
  clientId: "sandbox-client",
  clientSecret: "sandbox-client-secret",
  signingSecret: "whsec-sandbox-0001",
};
const scheduler = new RateScheduler();
const stores = new Map<string, GrantStore>();
const shopOf = new Map<GrantStore, string>();
const grantsJson = process.env.BENCH_GRANTS_FILE ? readFileSync(process.env.BENCH_GRANTS_FILE, "utf8") : (process.env.BENCH_GRANTS ?? "[]");
for (const g of JSON.parse(grantsJson) as GrantIn[]) {
  const store = new MemoryGrantStore({
    accessToken: g.accessToken,
    accessTokenExpiresAt: new Date(Date.now() + 3600_000),
    refreshToken: g.refreshToken,
    scopes: ["orders:write", "shipments:write"],
    workspaceId: g.workspaceId,
    boundOrigins: serviceOrigins(settings),
  });
  stores.set(`${g.shop} ${g.customerId}`, store);
  shopOf.set(store, g.shop);
}
const context = (store: GrantStore) =>
  createServiceContext(settings, {
    fetch: scheduledFetch(scheduler, clientKeyOf(url, settings.clientId), shopOf.get(store) ?? ""),
    timeoutMs: 15_000,
    retry: { maxAttempts: 3, maxElapsedMs: 20_000 },
  });

const db = process.env.BENCH_PGLITE_DIR
  ? openDatabase({ dataDir: process.env.BENCH_PGLITE_DIR })
  : openDatabase({ url: process.env.DATABASE_URL!, poolSize: Number(process.env.WORKER_POOL_SIZE) });
await db.ready;
const start = () =>
  startWorker(
    {
      prisma: db.prisma,
      loadSettings: async () => settings,
      grantStore: (grant) => stores.get(`${grant.shop} ${grant.customerId}`)!,
      importOrder: (_s, store, request, options) => importOrder(context(store), store, request, options),
      importShipment: (_s, store, request, options) => importShipment(context(store), store, request, options),
    },
    { concurrency: Number(process.env.WORKER_CONCURRENCY), pollMs: 20 },
  );
// BENCH_START_ON_SIGNAL: ready first, work on SIGUSR2, so several processes start their work together (the backlog
// section: the first process must not drain a small backlog while the second is still loading).
let worker: ReturnType<typeof start> | undefined;
if (process.env.BENCH_START_ON_SIGNAL) {
  const hold = setInterval(() => undefined, 60_000); // nothing else keeps the process alive until then
  process.once("SIGUSR2", () => {
    clearInterval(hold);
    worker = start();
  });
} else worker = start();
console.log("ready");
process.once("SIGTERM", () => void (worker?.stop() ?? Promise.resolve()).then(() => db.close()).then(() => process.exit(0)));
