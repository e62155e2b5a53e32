// Customer grants as the admin and the storefront see them: store after a successful OAuth callback, list and
// search for the Customers page, disconnect (revoke at the service, then delete the tokens). Every query is
// scoped by shop: a shop can only ever see or change its own customers' grants.
import type { PrismaClient } from "@prisma/client";
import {
  tokensMayGoTo,
  type ServiceDepsOverrides,
  type ServiceSettings,
  type TokenSet,
} from "../service/client.server";
import { bindings, openOptional, sealFor, sealOptional, type Keyring } from "../crypto/secret-box.server";
import { grantToken, revokeOrQueue } from "./revocations.server";
import { ORIGIN_CHANGED_REASON } from "../service/client.server";
import { UNREADABLE_REASON } from "./prisma-grant-store.server";
import { INVALID_GRANT_REASON, NO_REFRESH_REASON } from "../service/client.server";

/** Why a grant needs reconnecting, for the reasons the app sets itself (the same codes as app/sync/reasons.ts). */
type GrantReason = "unreadable" | "origin_changed" | "no_refresh_token" | "invalid_grant";
/** The grant reasons the app sets itself, as the codes the admin words (customers.status.*). */
const GRANT_REASON_CODES = new Map<string, GrantReason>([
  [UNREADABLE_REASON, "unreadable"],
  [ORIGIN_CHANGED_REASON, "origin_changed"],
  [NO_REFRESH_REASON, "no_refresh_token"],
  [INVALID_GRANT_REASON, "invalid_grant"],
]);

export interface NewGrant {
  shop: string;
  customerId: string;
  customerName?: string | null;
  customerEmail?: string | null;
  workspaceId: string;
  tokens: Pick<TokenSet, "accessToken" | "refreshToken" | "accessTokenExpiresAt" | "scopes">;
  /** serviceOrigins() of the settings that issued the tokens: they are only ever sent there. */
  boundOrigins?: string | null;
}

/**
 * Stores (or replaces, on reconnect) the grant of one customer. Bumping tokenVersion makes any worker still holding
 * the previous tokens lose its compare-and-set. Returns the replaced refresh token (plain), so the caller can
 * revoke the old authorization at the service.
 */
export async function storeGrant(
  prisma: PrismaClient,
  grant: NewGrant,
  options: { now?: Date; keyring?: Keyring } = {},
): Promise<{ id: string; previousRefreshToken: string | null }> {
  const now = options.now ?? new Date();
  const key = { shop: grant.shop, customerId: grant.customerId };
  const previous = await prisma.customerGrant.findUnique({ where: { shop_customerId: key } });
  const tokens = {
    workspaceId: grant.workspaceId,
    scopes: grant.tokens.scopes.join(" "),
    accessTokenEnc: sealFor(bindings.customerGrant(key, "accessTokenEnc"), grant.tokens.accessToken, options.keyring),
    accessTokenExpiresAt: grant.tokens.accessTokenExpiresAt,
    refreshTokenEnc: sealOptional(
      bindings.customerGrant(key, "refreshTokenEnc"),
      grant.tokens.refreshToken,
      options.keyring,
    ),
    status: "active",
    statusReason: null,
    connectedAt: now,
    boundOrigins: grant.boundOrigins ?? null,
  };
  const names = {
    ...(grant.customerName ? { customerName: grant.customerName } : {}),
    ...(grant.customerEmail ? { customerEmail: grant.customerEmail } : {}),
  };
  const row = await prisma.customerGrant.upsert({
    where: { shop_customerId: key },
    create: { ...key, ...names, ...tokens },
    update: { ...names, ...tokens, tokenVersion: { increment: 1 } },
  });
  let previousRefreshToken: string | null = null;
  try {
    previousRefreshToken = previous
      ? openOptional(bindings.customerGrant(key, "refreshTokenEnc"), previous.refreshTokenEnc, options.keyring)
      : null;
  } catch {
    previousRefreshToken = null; // an undecryptable old token cannot be revoked; the new grant is what matters
  }
  if (previousRefreshToken === grant.tokens.refreshToken) previousRefreshToken = null;
  // An old token from another service address is not sent to this one to be revoked.
  if (previous?.boundOrigins && previous.boundOrigins !== grant.boundOrigins) previousRefreshToken = null;
  return { id: row.id, previousRefreshToken };
}

export type GrantStatusView = "active" | "needs_reconnect";

/** A row of the Customers page: no token material. */
export interface GrantRow {
  id: string;
  customerId: string;
  customerName: string | null;
  customerEmail: string | null;
  /** What to show as the customer: name, else email, else "Customer <id>". */
  displayName: string;
  workspaceId: string;
  scopes: string[];
  connectedAt: string;
  lastUsedAt: string | null;
  status: GrantStatusView;
  statusReason: string | null;
  /** The reason as a code when it is one of the app's own (the admin words it); null for the service's words. */
  statusReasonCode: GrantReason | null;
}

export interface GrantPage {
  items: GrantRow[];
  total: number;
  page: number;
  pageCount: number;
  pageSize: number;
  query: string;
}

export function displayName(row: { customerName: string | null; customerEmail: string | null; customerId: string }) {
  return row.customerName?.trim() || row.customerEmail?.trim() || `Customer ${row.customerId}`;
}

/** Connected customers of one shop, newest first, filtered by name, email, customer id or workspace. */
export async function listGrants(
  prisma: PrismaClient,
  shop: string,
  options: { query?: string; page?: number; pageSize?: number } = {},
): Promise<GrantPage> {
  const pageSize = Math.min(Math.max(Math.trunc(options.pageSize ?? 20), 1), 100);
  // NUL cannot be sent to PostgreSQL at all (the query would fail with a 500); no stored value contains one.
  const query = (options.query ?? "").replaceAll("\u0000", "").trim().slice(0, 200);
  // Prisma's `contains` becomes LIKE '%…%' without escaping, so % and _ in the search would be wildcards.
  const pattern = query.replace(/[\\%_]/g, "\\$&");
  const where = {
    shop,
    ...(query
      ? {
          OR: [
            { customerName: { contains: pattern, mode: "insensitive" as const } },
            { customerEmail: { contains: pattern, mode: "insensitive" as const } },
            { customerId: { contains: pattern } },
            { workspaceId: { contains: pattern, mode: "insensitive" as const } },
          ],
        }
      : {}),
  };
  const total = await prisma.customerGrant.count({ where });
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(Math.max(Math.trunc(options.page ?? 1) || 1, 1), pageCount);
  const rows = await prisma.customerGrant.findMany({
    where,
    orderBy: [{ connectedAt: "desc" }, { id: "asc" }],
    skip: (page - 1) * pageSize,
    take: pageSize,
    select: {
      id: true,
      customerId: true,
      customerName: true,
      customerEmail: true,
      workspaceId: true,
      scopes: true,
      connectedAt: true,
      lastUsedAt: true,
      status: true,
      statusReason: true,
    },
  });
  return {
    items: rows.map((r) => ({
      id: r.id,
      customerId: r.customerId,
      customerName: r.customerName,
      customerEmail: r.customerEmail,
      displayName: displayName(r),
      workspaceId: r.workspaceId,
      scopes: r.scopes.split(" ").filter(Boolean),
      connectedAt: r.connectedAt.toISOString(),
      lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
      status: r.status === "needs_reconnect" ? "needs_reconnect" : "active",
      statusReason: r.statusReason,
      statusReasonCode: GRANT_REASON_CODES.get(r.statusReason ?? "") ?? null,
    })),
    total,
    page,
    pageCount,
    pageSize,
    query,
  };
}

/** What the storefront page shows the logged-in customer about their own connection. */
export async function getCustomerConnection(prisma: PrismaClient, shop: string, customerId: string) {
  const row = await prisma.customerGrant.findUnique({
    where: { shop_customerId: { shop, customerId } },
    select: { workspaceId: true, scopes: true, status: true, connectedAt: true },
  });
  if (!row) return null;
  return {
    workspaceId: row.workspaceId,
    scopes: row.scopes.split(" ").filter(Boolean),
    status: (row.status === "needs_reconnect" ? "needs_reconnect" : "active") as GrantStatusView,
    connectedAt: row.connectedAt.toISOString(),
  };
}

/** Why revoking at the service failed: a code the admin words, and the service's own message for "service". */
export type RevokeProblem = "no_settings" | "origin_changed" | "undecryptable" | "service";

export type DisconnectResult =
  | { ok: true; revoked: boolean; message: string; who: string; problem?: RevokeProblem; serviceMessage?: string }
  | { ok: false; status: 404; message: string };

/**
 * Disconnects one customer of `shop`: revokes the authorization at the service (the refresh token ends the whole
 * authorization; without one, the access token), then deletes the row and with it the tokens. The local delete
 * happens even when the service cannot be reached: the merchant asked for the link to end here.
 */
export async function disconnectGrant(
  prisma: PrismaClient,
  shop: string,
  grantId: string,
  options: { settings: ServiceSettings | null; keyring?: Keyring; deps?: ServiceDepsOverrides },
): Promise<DisconnectResult> {
  const notFound = { ok: false, status: 404, message: "No such connected customer." } as const;
  // An id PostgreSQL cannot even compare (it holds a NUL) is no grant of ours either.
  if (grantId.includes("\u0000")) return notFound;
  // findFirst with the shop in the filter: another shop's grant id is simply "not found".
  const row = await prisma.customerGrant.findFirst({ where: { id: grantId, shop } });
  if (!row) return notFound;
  const who = displayName(row);

  let revoked = false;
  let problem = "the service settings are not configured";
  let code: RevokeProblem = "no_settings";
  let serviceMessage: string | undefined;
  if (options.settings && !tokensMayGoTo(row.boundOrigins, options.settings)) {
    problem = "the service address changed since this customer connected, so their tokens are not sent there";
    code = "origin_changed";
  } else if (options.settings) {
    const token = grantToken(row, options.keyring);
    if (token) {
      // A failure is queued: the worker keeps trying (connections/revocations.server.ts).
      const result = await revokeOrQueue(prisma, options.settings, token, {
        keyring: options.keyring,
        deps: options.deps,
      });
      revoked = result.ok;
      if (!result.ok) [problem, code, serviceMessage] = [result.message, "service", result.message];
    } else {
      problem = "the stored tokens could not be decrypted";
      code = "undecryptable";
    }
  }
  await prisma.customerGrant.deleteMany({ where: { id: row.id, shop } });
  return {
    ok: true,
    revoked,
    who,
    ...(revoked ? {} : { problem: code, serviceMessage }),
    message: revoked
      ? `Disconnected ${who}: the authorization was revoked at the service and the tokens were deleted.`
      : `Disconnected ${who}: the tokens were deleted here, but revoking at the service failed (${problem.replace(/\.$/, "")}); the app keeps trying to revoke it in the background.`,
  };
}
