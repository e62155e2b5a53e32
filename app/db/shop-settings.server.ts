// The ShopSettings row's one owner: one row per shop, in sections that belong to different areas. Every read and
// write of the row goes through here: a section is read with its own columns only and written without touching
// the others (an upsert: a shop without a row gets one with the defaults). The hot paths (the handoff click, the
// queue's lease, retention) read the columns they need inside their own statements: their SQL fragments live here
// too, so a renamed column is found in one file. The meaning of each section stays with its area (validation,
// decryption, wording).
import { Prisma, type ShopSettings } from "@prisma/client";
import { rawQuery, type Db } from "./sql.server";

/**
 * The columns the service client's settings are built from (app/connections/settings-loader.server.ts), secrets
 * encrypted: the service section without its "changed on" dates. The hot paths read these in SQL (SERVICE_ROW).
 */
const SERVICE_COLUMNS = [
  "environment",
  "baseUrl",
  "sandboxBaseUrl",
  "authUrl",
  "clientId",
  "clientSecretEnc",
  "signingSecretEnc",
] as const;

/** The columns of each section (prisma/schema.prisma, model ShopSettings). */
export const SECTIONS = {
  /** The Merchant Integration Service connection (app/connections/settings-store.server.ts); secrets encrypted. */
  service: [...SERVICE_COLUMNS, "clientSecretChangedAt", "signingSecretChangedAt"],
  /** The last "Check connection" (app/admin/home.server.ts). */
  check: ["lastCheckAt", "lastCheckOk", "lastCheckMessage", "lastCheckDetails"],
  /** Sync controls (app/sync). */
  sync: ["syncPaused", "backfillDays"],
  /** Continue cart (app/handoff/settings.server.ts). */
  handoff: ["cartButtonEnabled", "handoffExpirySeconds"],
  /** Retention (app/privacy/retention.server.ts). */
  retention: ["retentionDays"],
  /** Install state (app/privacy/lifecycle.server.ts). */
  install: ["uninstalledAt"],
} as const satisfies Record<string, readonly (keyof ShopSettings)[]>;

export type SectionName = keyof typeof SECTIONS;
export type Section<S extends SectionName> = Pick<ShopSettings, (typeof SECTIONS)[S][number]>;

const selectOf = (names: readonly SectionName[]) =>
  Object.fromEntries(names.flatMap((name) => SECTIONS[name].map((column) => [column, true]))) as Record<string, true>;

/** The named sections of the shop's row (their columns only), or null when the shop has no row yet. */
export async function readSections<S extends SectionName>(
  db: Db,
  shop: string,
  ...names: S[]
): Promise<Section<S> | null> {
  return (await db.shopSettings.findUnique({ where: { shop }, select: selectOf(names) })) as Section<S> | null;
}

/** Writes some columns of one section (the other sections are left as they are); returns the section as stored. */
export async function writeSection<S extends SectionName>(
  db: Db,
  shop: string,
  name: S,
  data: Partial<Section<S>>,
): Promise<Section<S>> {
  const stored = await db.shopSettings.upsert({
    where: { shop },
    create: { shop, ...data },
    update: data,
    select: selectOf([name]),
  });
  return stored as unknown as Section<S>;
}

/** A reinstall: clears the install state when it was set (no row is made); how many rows changed (0 or 1). */
export async function clearUninstalled(db: Db, shop: string): Promise<number> {
  return (
    await db.shopSettings.updateMany({ where: { shop, uninstalledAt: { not: null } }, data: { uninstalledAt: null } })
  ).count;
}

// Hot paths: fragments for statements written in SQL (ADR 0002), kept beside the model they read.

/** The service section's columns, as stored (secrets encrypted): what the service client's settings are built from. */
export type ServiceSettingsRow = Pick<ShopSettings, (typeof SERVICE_COLUMNS)[number]>;

/** The handoff click's one-statement read: the service section's columns and the handoff section. */
export type HandoffRow = ServiceSettingsRow & Section<"handoff">;

// The select lists, from the column lists above. No timestamp among them: the driver and Prisma read every one
// alike (docs/decisions/0002).
const selectList = (columns: readonly string[]) => Prisma.raw(columns.map((column) => `"${column}"`).join(", "));
const SERVICE_ROW = selectList(SERVICE_COLUMNS);
const HANDOFF_ROW = selectList([...SERVICE_COLUMNS, ...SECTIONS.handoff]);

/**
 * The service section of `alias` (a "ShopSettings" row joined in a hot statement: the queue's lease) as one JSON
 * value, null when the shop has no row: the same ServiceSettingsRow readServiceRow gives (every column a string).
 */
export const serviceRowJson = (alias: string) =>
  Prisma.raw(
    `CASE WHEN ${alias}.shop IS NULL THEN NULL ELSE jsonb_build_object(${SERVICE_COLUMNS.map((column) => `'${column}', ${alias}."${column}"`).join(", ")}) END`,
  );

/** The service section as stored, for an import job the lease did not read it for (through the driver: rawQuery). */
export async function readServiceRow(db: Db, shop: string): Promise<ServiceSettingsRow | null> {
  const [row] = await rawQuery<ServiceSettingsRow>(
    db,
    Prisma.sql`SELECT ${SERVICE_ROW} FROM "ShopSettings" WHERE shop = ${shop}`,
  );
  return row ?? null;
}

export async function readHandoffRow(db: Db, shop: string): Promise<HandoffRow | null> {
  const [row] = await rawQuery<HandoffRow>(
    db,
    Prisma.sql`SELECT ${HANDOFF_ROW} FROM "ShopSettings" WHERE shop = ${shop}`,
  );
  return row ?? null;
}

/** True (SQL) when the shop in `alias.shop` must not be leased: sync paused or app uninstalled. */
export const shopHeldSql = (alias: string) =>
  Prisma.sql`EXISTS (SELECT 1 FROM "ShopSettings" st WHERE st.shop = ${Prisma.raw(alias)}.shop AND (st."syncPaused" OR st."uninstalledAt" IS NOT NULL))`;

/** The retention period (days, SQL) of the shop in `alias.shop`, `fallback` when it has no row. */
export const retentionDaysSql = (alias: string, fallback: number) =>
  Prisma.sql`COALESCE((SELECT s."retentionDays" FROM "ShopSettings" s WHERE s.shop = ${Prisma.raw(alias)}.shop), ${fallback})`;
