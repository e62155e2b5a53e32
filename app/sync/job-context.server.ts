// What running a job needs: the collaborators (`SyncDeps`: service client, settings loader, grant store factory,
// Admin API, clock, logger), so tests replace exactly what they need, and their defaults. Nothing here imports Remix.
import type { AdminCostBudget } from "../shopify/admin-cost-budget.server";
import type { PrismaClient } from "@prisma/client";
import type { GrantStore, ImportOutcome, ServiceSettings } from "../service/client.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import type { ServiceSettingsRow } from "../db/shop-settings.server";

/** The ordering customer's grant, as the job reads it to decide where the order goes (routeCustomer). */
export interface RoutedGrant {
  id: string;
  shop: string;
  customerId: string;
  workspaceId: string;
  status: string;
  statusReason: string | null;
}

/** Where an order goes, or why not (a reason code, app/sync/reasons.ts words it). */
export type Route =
  { kind: "grant"; grant: RoutedGrant } | { kind: "not_connected" } | { kind: "needs_reconnect"; grant: RoutedGrant };

export interface SyncLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export type ImportFn = (
  settings: ServiceSettings,
  store: GrantStore,
  request: unknown,
  options: { idempotencyKey: string },
) => Promise<ImportOutcome>;

export interface SyncDeps {
  prisma: PrismaClient;
  now?: () => Date;
  random?: () => number;
  logger?: SyncLogger;
  /**
   * The shop's decrypted service settings, or null when not configured; from `row` when the job's lease read the
   * stored columns already (null: the shop has no settings row).
   */
  loadSettings: (shop: string, row?: ServiceSettingsRow | null) => Promise<ServiceSettings | null>;
  /** The GrantStore over one CustomerGrant row (decrypting tokens). */
  grantStore: (grant: RoutedGrant) => GrantStore;
  importOrder: ImportFn;
  importShipment: ImportFn;
  /** Admin GraphQL API for backfills. */
  adminGraphql?: AdminGraphql;
  /** Waits for the Admin API's cost bucket (tests pass one that moves their clock). */
  sleep?: (ms: number) => Promise<void>;
  /** The shops' Admin API cost buckets as last reported (one per process by default). */
  adminBudget?: AdminCostBudget;
  /** Downloads a bulk operation's result file (the global fetch by default). */
  fetch?: typeof fetch;
}

const silent: SyncLogger = { debug() {}, info() {}, warn() {}, error() {} };

export type Resolved = Required<Pick<SyncDeps, "now" | "random" | "logger">> & SyncDeps;

export const resolve = (deps: SyncDeps): Resolved => ({
  ...deps,
  now: deps.now ?? (() => new Date()),
  random: deps.random ?? Math.random,
  logger: deps.logger ?? silent,
});
