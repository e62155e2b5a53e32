// The home page: the shop's sync health at a glance, imports and failures per day, and the setup guide for a new
// merchant. Read-only counts over indexed columns, scoped by shop; no Remix.
import type { PrismaClient } from "@prisma/client";
import { customerAccountsOf } from "../connections/account-root.server";
import { isServiceConfigured } from "../connections/settings-loader.server";
import type { CheckFinding } from "../connections/settings-check.server";
import { readSections, writeSection } from "../db/shop-settings.server";
import { ts } from "../db/sql.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { HEARTBEAT_STALE_MS } from "../sync/heartbeat.server";
import { loadBackfills } from "./backfills.server";
import { hasRunningWork } from "./log.server";
import { embedStatus, themeEditorLinks, type EmbedStatus } from "./theme-setup.server";

export interface DayCount {
  day: string; // YYYY-MM-DD (UTC)
  imports: number;
  failures: number;
}

export interface SetupStep {
  id: "settings" | "check" | "theme" | "import";
  done: boolean;
}

/**
 * Where the shopper's "Connect workspace" goes for this store: the customer account extension on the current
 * customer accounts, the theme block on legacy ones (Shopify's customerAccountsV2, read only while the step is open).
 */
export type AccountSurface = "customer_accounts" | "legacy_accounts" | "unknown";

export function accountSurfaceOf(version: "NEW_CUSTOMER_ACCOUNTS" | "CLASSIC" | null): AccountSurface {
  return version === "NEW_CUSTOMER_ACCOUNTS"
    ? "customer_accounts"
    : version === "CLASSIC"
      ? "legacy_accounts"
      : "unknown";
}

export interface HomeView {
  settings: {
    complete: boolean;
    environment: "sandbox" | "production";
    /** `finding`: the same as data (CheckFinding; none for a check made before it was kept). */
    lastCheck: { at: string; ok: boolean; message: string; finding: unknown } | null;
  };
  worker: { alive: boolean; lastBeatAt: string | null };
  backlog: number;
  /** Age in seconds of the oldest import waiting to run, null when none waits. */
  oldestWaitingSeconds: number | null;
  importsToday: number;
  needsAttention: number;
  customersConnected: number;
  days: DayCount[]; // the last 30 days, oldest first; the page also shows the last 7
  setup: SetupStep[];
  busy: boolean;
}

const IMPORT_KINDS = ["order", "shipment"];
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
// Columns are UTC timestamps without a zone: compare with one, not with a driver-converted timestamptz.

/** Imports (importedAt) and failures (failed records, by their last attempt) per UTC day, zeros included. */
async function perDay(prisma: PrismaClient, shop: string, now: Date, days: number): Promise<DayCount[]> {
  const since = new Date(Date.parse(`${dayOf(now)}T00:00:00Z`) - (days - 1) * 86_400_000);
  const [imports, failures] = await Promise.all([
    prisma.$queryRaw<{ day: string; n: number }[]>`
      SELECT to_char("importedAt", 'YYYY-MM-DD') AS day, count(*)::int AS n FROM "SyncRecord"
      WHERE shop = ${shop} AND "importedAt" >= ${ts(since)} GROUP BY 1`,
    prisma.$queryRaw<{ day: string; n: number }[]>`
      SELECT to_char(COALESCE("lastAttemptAt", "updatedAt"), 'YYYY-MM-DD') AS day, count(*)::int AS n FROM "SyncRecord"
      WHERE shop = ${shop} AND state = 'failed' AND COALESCE("lastAttemptAt", "updatedAt") >= ${ts(since)} GROUP BY 1`,
  ]);
  const byDay = (rows: { day: string; n: number }[]) => new Map(rows.map((r) => [r.day, Number(r.n)]));
  const i = byDay(imports);
  const f = byDay(failures);
  return Array.from({ length: days }, (_, k) => {
    const day = dayOf(new Date(since.getTime() + k * 86_400_000));
    return { day, imports: i.get(day) ?? 0, failures: f.get(day) ?? 0 };
  });
}

export async function loadHome(prisma: PrismaClient, shop: string, now = new Date()): Promise<HomeView> {
  const startOfDay = new Date(`${dayOf(now)}T00:00:00Z`);
  const [
    settings,
    beat,
    backlog,
    oldest,
    importsToday,
    needsAttention,
    customersConnected,
    anyGrant,
    anyImport,
    days,
    busy,
  ] = await Promise.all([
    readSections(prisma, shop, "service", "check"),
    prisma.workerHeartbeat.findFirst({ orderBy: { beatAt: "desc" }, select: { beatAt: true } }),
    prisma.job.count({ where: { shop, kind: { in: IMPORT_KINDS }, status: { in: ["queued", "running"] } } }),
    prisma.job.findFirst({
      where: { shop, kind: { in: IMPORT_KINDS }, status: "queued" },
      orderBy: { createdAt: "asc" },
      select: { createdAt: true },
    }),
    prisma.syncRecord.count({ where: { shop, importedAt: { gte: startOfDay } } }),
    prisma.syncRecord.count({ where: { shop, state: "failed", resolvedAt: null } }),
    prisma.customerGrant.count({ where: { shop, status: "active" } }),
    prisma.customerGrant.findFirst({ where: { shop }, select: { id: true } }),
    prisma.syncRecord.findFirst({ where: { shop, importedAt: { not: null } }, select: { id: true } }),
    perDay(prisma, shop, now, 30),
    hasRunningWork(prisma, shop, now),
  ]);
  const complete = isServiceConfigured(settings);
  const lastCheck =
    settings?.lastCheckAt && settings.lastCheckOk !== null
      ? {
          at: settings.lastCheckAt.toISOString(),
          ok: settings.lastCheckOk,
          message: settings.lastCheckMessage ?? "",
          finding: settings.lastCheckDetails,
        }
      : null;
  return {
    settings: { complete, environment: settings?.environment === "production" ? "production" : "sandbox", lastCheck },
    worker: {
      alive: !!beat && now.getTime() - beat.beatAt.getTime() < HEARTBEAT_STALE_MS,
      lastBeatAt: beat?.beatAt.toISOString() ?? null,
    },
    backlog,
    oldestWaitingSeconds: oldest ? Math.max(0, Math.round((now.getTime() - oldest.createdAt.getTime()) / 1000)) : null,
    importsToday,
    needsAttention,
    customersConnected,
    days,
    setup: [
      { id: "settings", done: complete },
      { id: "check", done: complete && settings?.lastCheckOk === true },
      // A customer connects through the storefront block: once one has, the block is on the theme.
      { id: "theme", done: !!anyGrant },
      { id: "import", done: !!anyImport },
    ],
    busy,
  };
}

/**
 * Everything the home page shows: the counts, the latest backfills, the published theme's app embed (through the
 * Admin API, read_themes; "unknown" on any failure or after 3 s) and where "Connect workspace" goes.
 */
export async function loadHomePage(prisma: PrismaClient, shop: string, adminGraphql: AdminGraphql, apiKey: string) {
  const [home, backfills, embed] = await Promise.all([
    loadHome(prisma, shop),
    loadBackfills(prisma, shop),
    Promise.race([
      embedStatus(adminGraphql, shop),
      new Promise<EmbedStatus>((resolve) => setTimeout(() => resolve({ state: "unknown", why: "timeout" }), 3000)),
    ]),
  ]);
  // The theme step is done once the embed is on (read from the theme) or a customer connected through the block.
  const setup = home.setup.map((s) => (s.id === "theme" ? { ...s, done: s.done || embed.state === "on" } : s));
  const links = themeEditorLinks(shop, apiKey);
  // Which customer accounts the store has decides where "Connect workspace" goes; asked only while that step is open.
  const themeStepOpen = setup.some((s) => s.id === "theme" && !s.done);
  const accounts = themeStepOpen ? await customerAccountsOf(shop, adminGraphql) : { version: null };
  const surface = accountSurfaceOf(accounts.version);
  return {
    shop,
    home: { ...home, setup },
    backfills,
    embed,
    links,
    surface,
    busy: home.busy || backfills.some((b) => b.status === "running"),
  };
}

/** Keeps the outcome of "Check connection" for the home page (time, pass/fail, the one-line message). */
export async function recordConnectionCheck(
  prisma: PrismaClient,
  shop: string,
  report: { ok: boolean; message: string; finding: CheckFinding },
  now = new Date(),
) {
  const data = {
    lastCheckAt: now,
    lastCheckOk: report.ok,
    lastCheckMessage: report.message.slice(0, 500),
    lastCheckDetails: report.finding,
  };
  await writeSection(prisma, shop, "check", data);
}
