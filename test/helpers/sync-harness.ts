// The sync tests' set-up, written once: a test database and the service emulator for the file, emptied before each
// test with a fresh clock and token stores, and the worker's collaborators pointed at them (test/sync/support.ts);
// with Shopify's Admin API through MSW when a test needs it. Apart from support.ts, whose pieces other areas' tests
// import without loading Shopify's library.
import type { SetupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { setDatabase } from "~/db.server";
import type { GrantStore } from "~/service/client.server";
import type { AdminGraphql } from "~/shopify/admin-api.server";
import { drainJobs, type SyncDeps } from "~/sync/job-runner.server";
import { Clock, resetSyncState, syncDeps } from "../sync/support";
import { createTestDatabase, type TestDatabase } from "./db";
import { startTestEmulator } from "./emulator";
import { adminGraphqlViaShopify, seedOfflineSession } from "./shopify";

export interface SyncHarness {
  readonly db: TestDatabase;
  readonly emulator: RunningEmulator;
  /** Each test's own: the connected customers' tokens, the clock, the worker's collaborators (a test may swap them). */
  stores: Map<string, GrantStore>;
  clock: Clock;
  deps: SyncDeps;
  /** Shopify's Admin API through Shopify's own library (with `shopify`). */
  readonly adminGraphql: AdminGraphql;
  /**
   * Runs the worker until no job is queued, moving the clock to the next queued job's time (up to `rounds` times);
   * `until` stops it early, `maxRounds` limits each drain.
   */
  settle(rounds: number, options?: { until?: () => Promise<boolean>; maxRounds?: number }): Promise<void>;
}

/**
 * The sync tests' set-up: a test database and the service emulator for the file, the sync tables and the emulator
 * emptied before each test with a fresh clock and token stores. With `shopify` (an MSW server standing in for
 * Shopify), the shop has an offline session on this database and the worker reaches Shopify's Admin API through
 * Shopify's library, as in production; other requests (the emulator) go out for real.
 */
export function withSyncHarness(options: { shopify?: SetupServer } = {}): SyncHarness {
  const { shopify } = options;
  const h = {} as { -readonly [K in keyof SyncHarness]: SyncHarness[K] };
  beforeAll(async () => {
    if (shopify) {
      shopify.listen({ onUnhandledRequest: "bypass" });
      // Shopify's library takes the global fetch when it is first imported: import it once MSW has replaced it.
      h.adminGraphql = await adminGraphqlViaShopify();
    }
    [h.db, h.emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
    if (shopify) {
      setDatabase(h.db); // Shopify's library loads the session through the app's storage, on this database
      await seedOfflineSession(h.db.prisma);
    }
  });
  if (shopify) afterEach(() => shopify.resetHandlers());
  afterAll(async () => {
    shopify?.close();
    await h.emulator?.close();
    await h.db?.close();
  });
  beforeEach(async () => {
    await resetSyncState(h.db.prisma, h.emulator);
    h.stores = new Map();
    h.clock = new Clock();
    const deps = syncDeps(h.db.prisma, h.emulator, h.stores, h.clock);
    h.deps = shopify ? { ...deps, adminGraphql: h.adminGraphql } : deps;
  });
  h.settle = async (rounds, { until, maxRounds } = {}) => {
    for (let i = 0; i < rounds; i++) {
      if (until && (await until())) return;
      if ((await drainJobs(h.deps, maxRounds ? { maxRounds } : undefined)) > 0) continue;
      const next = await h.db.prisma.job.findFirst({ where: { status: "queued" }, orderBy: { runAt: "asc" } });
      if (!next) return;
      h.clock.ms = next.runAt.getTime() + 1;
    }
  };
  return h;
}
