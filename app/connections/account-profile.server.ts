// What the customer account extension's profile block and Connect workspace page show (extensions/workspace-account):
// the customer's connection and how their latest Connect attempt ended (the pages ask as they open and while
// waiting: they never read their own address, docs/decisions/0010-account-connect-without-own-address.md). Shop and
// customer come from the verified session token (app/callers/customer-account.server.ts); every query is scoped by
// both, so one customer never reads another's.
import type { PrismaClient } from "@prisma/client";
import type { Keyring } from "../crypto/secret-box.server";
import { getCustomerConnection } from "./grant-lifecycle.server";
import type { ConnectResultCode } from "./oauth-common.server";
import { loadServiceSettingsOrNull } from "./settings-loader.server";

/** How this customer's latest Connect attempt ended, when it ended lately: what the account pages tell them. */
export interface LatestAttempt {
  result: ConnectResultCode;
  finishedAt: string;
}

export type ProfileStatus = (
  | { status: "not_configured" }
  | { status: "not_connected" }
  | { status: "connected" | "needs_reconnect"; workspaceId: string; connectedAt: string; scopes: string[] }
) & { attempt: LatestAttempt | null };

/** An attempt's outcome is told for this long after it ended (the pages ask as they open, and while waiting). */
export const ATTEMPT_TOLD_MS = 10 * 60 * 1000;

/** The profile block's and the Connect page's answer: the connection, and how the latest attempt ended. */
export async function accountProfile(
  prisma: PrismaClient,
  shop: string,
  customerId: string,
  options: { keyring?: Keyring; now?: Date } = {},
): Promise<ProfileStatus> {
  const now = options.now ?? new Date();
  const [connection, configured, attempt] = await Promise.all([
    getCustomerConnection(prisma, shop, customerId),
    isConfigured(prisma, shop, options.keyring),
    latestAttempt(prisma, shop, customerId, now),
  ]);
  if (connection) {
    const status = connection.status === "active" ? "connected" : "needs_reconnect";
    return {
      status,
      workspaceId: connection.workspaceId,
      connectedAt: connection.connectedAt,
      scopes: connection.scopes,
      attempt,
    };
  }
  return { status: configured ? "not_connected" : "not_configured", attempt };
}

// Scoped by shop and the session token's customer: another customer's attempt (one they approved for someone else
// included) is never told here; that browser was told on the store's Connect page.
async function latestAttempt(prisma: PrismaClient, shop: string, customerId: string, now: Date) {
  const row = await prisma.oAuthState.findFirst({
    where: { shop, customerId, finishedAt: { gt: new Date(now.getTime() - ATTEMPT_TOLD_MS) }, result: { not: null } },
    orderBy: { finishedAt: "desc" },
    select: { result: true, finishedAt: true },
  });
  return row?.result && row.finishedAt
    ? { result: row.result as ConnectResultCode, finishedAt: row.finishedAt.toISOString() }
    : null;
}

// Undecryptable settings count as none: the merchant sees why in the admin; the shopper sees "not available".
const isConfigured = async (prisma: PrismaClient, shop: string, keyring?: Keyring) =>
  (await loadServiceSettingsOrNull(prisma, shop, { keyring })) !== null;
