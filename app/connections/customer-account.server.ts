// The shopper's side of the app on Shopify's customer account pages (extensions/workspace-account): what the
// profile block, the order status block and the Connect workspace page show, and connect / disconnect from there. The shop and customer
// always come from the verified session token (app/shopify/customer-account-auth.server.ts); every query is scoped by
// both, so one customer can never read or change another's connection or orders. Connecting reuses the storefront
// flow's steps (oauth-start, oauth-callback, storefront-completion, where Shopify signs who is signed in); the shopper
// then comes back to the account's profile page, at the root Shopify's Admin API gives, and the pages ask here how
// the attempt ended (docs/decisions/0010-account-connect-without-own-address.md).
import type { PrismaClient } from "@prisma/client";
import type { AdminGraphql } from "../shopify/admin-api.server";
import type { Keyring } from "../crypto/secret-box.server";
import { isLoopbackHost } from "../loopback";
import { disconnectGrant, getCustomerConnection } from "./grant-lifecycle.server";
import { loadServiceSettingsOrNull } from "./settings.server";
import { startConnect } from "./oauth-start.server";
import type { ConnectResultCode } from "./oauth-common.server";

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

/** Plain states the shopper sees for an order or a shipment: never the app's internal codes. */
export type DeliveryState = "sent" | "waiting" | "failed" | "not_sent";

export type OrderStatus =
  | { status: "unknown" }
  | { status: "known"; orderName: string | null; order: DeliveryState; shipments: DeliveryState[] };

const deliveryState = (state: string): DeliveryState =>
  state === "imported" || state === "updated"
    ? "sent"
    : state === "failed"
      ? "failed"
      : state === "skipped"
        ? "not_sent"
        : "waiting";

const ORDER_ID = /^[1-9][0-9]{0,19}$/;

/**
 * Whether an order and its shipments reached the customer's workspace. Answered only when the order is this
 * customer's: another customer's order, an order of another shop and an unknown one all get the same "unknown".
 */
export async function accountOrderStatus(
  prisma: PrismaClient,
  shop: string,
  customerId: string,
  orderId: string,
): Promise<OrderStatus> {
  const unknown = { status: "unknown" } as const;
  const id = orderId.replace(/^gid:\/\/shopify\/Order\//, "");
  if (!ORDER_ID.test(id)) return unknown;
  const order = await prisma.syncRecord.findFirst({
    where: { shop, kind: "order", externalId: id, customerId },
    select: { state: true, orderName: true },
  });
  if (!order) return unknown;
  const shipments = await prisma.syncRecord.findMany({
    where: { shop, kind: "shipment", orderId: id },
    select: { state: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: 50,
  });
  return {
    status: "known",
    orderName: order.orderName,
    order: deliveryState(order.state),
    shipments: shipments.map((s) => deliveryState(s.state)),
  };
}

// ---- connecting from the account page ------------------------------------------------------------------------

export const CUSTOMER_ACCOUNTS_QUERY = `#graphql
query CustomerAccounts {
  shop { customerAccountsV2 { customerAccountsVersion url } }
}`;

export type AccountsVersion = "NEW_CUSTOMER_ACCOUNTS" | "CLASSIC";

export interface CustomerAccountsInfo {
  version: AccountsVersion | null;
  /** The root of the store's customer account pages (https), when Shopify said. */
  url: string | null;
}

/** Which customer accounts the store uses and where they live, as Shopify's Admin API says; nulls when it cannot. */
export async function customerAccountsOf(shop: string, adminGraphql: AdminGraphql): Promise<CustomerAccountsInfo> {
  try {
    const answer = (await adminGraphql(shop, CUSTOMER_ACCOUNTS_QUERY, {})) as {
      data?: { shop?: { customerAccountsV2?: { customerAccountsVersion?: unknown; url?: unknown } | null } | null };
    };
    const v2 = answer?.data?.shop?.customerAccountsV2;
    const version =
      v2?.customerAccountsVersion === "NEW_CUSTOMER_ACCOUNTS" || v2?.customerAccountsVersion === "CLASSIC"
        ? v2.customerAccountsVersion
        : null;
    return { version, url: accountUrl(v2?.url) };
  } catch {
    return { version: null, url: null };
  }
}

function accountUrl(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 500) return null;
  try {
    const url = new URL(value);
    // http only for the local stand-in (dev/demo), which runs without TLS on the loopback interface.
    const local = url.protocol === "http:" && isLoopbackHost(url.hostname);
    if ((url.protocol !== "https:" && !local) || url.username || url.password) return null;
    url.search = "";
    url.hash = "";
    return url.toString().replace(/\/+$/, "");
  } catch {
    return null;
  }
}

async function accountRootOf(shop: string, adminGraphql: AdminGraphql, now: number): Promise<string | null> {
  const cached = cachedAccountUrl(shop, now);
  if (cached !== undefined) return cached;
  const answer = await customerAccountsOf(shop, adminGraphql);
  if (answer.version !== null) rememberAccountUrl(shop, answer.url, now); // Shopify answered: null is its answer too
  return answer.url;
}

// The account URL changes only when a merchant switches account versions or domains, while every Connect click
// needs it: kept per shop for ACCOUNT_URL_TTL_MS, so clicks cost no Admin API query. Failures are not kept.
export const ACCOUNT_URL_TTL_MS = 10 * 60 * 1000;
const MAX_CACHED_SHOPS = 10_000;
const accountUrls = new Map<string, { url: string | null; at: number }>();

function cachedAccountUrl(shop: string, now: number): string | null | undefined {
  const hit = accountUrls.get(shop);
  if (!hit || now - hit.at >= ACCOUNT_URL_TTL_MS || now < hit.at) return undefined;
  return hit.url;
}

function rememberAccountUrl(shop: string, url: string | null, now: number) {
  accountUrls.delete(shop);
  accountUrls.set(shop, { url, at: now });
  if (accountUrls.size > MAX_CACHED_SHOPS) accountUrls.delete(accountUrls.keys().next().value!);
}

export type AccountConnectStart =
  | { ok: true; authorizationUrl: string }
  | { ok: false; code: "not_configured" }
  | { ok: false; code: "busy"; message: string };

/** The page of the store's customer accounts a shopper comes back to: the profile, under Shopify's account root. */
export const accountReturnPage = (root: string) => `${root}/profile`;

/**
 * Connect: a state bound to this shop and customer. The page asks for its link each time it opens, so a pending
 * attempt is handed out again at no cost; only a new one asks `mayStartNew` (the shopper's connect budget).
 *
 * Nothing comes from the page: after consent the shopper completes on the store (the callback sends every attempt
 * to the app proxy's completion step, where Shopify signs logged_in_customer_id), then comes back to the profile
 * page under the account root the Admin API gives (customerAccountsV2.url, kept per shop). When Shopify names no root,
 * the store's own Connect page (the app proxy) is the way back instead.
 */
export async function startAccountConnect(
  prisma: PrismaClient,
  who: { shop: string; customerId: string },
  options: {
    appUrl: string;
    adminGraphql: AdminGraphql;
    mayStartNew?: () => boolean | Promise<boolean>;
    keyring?: Keyring;
    now?: Date;
  },
): Promise<AccountConnectStart> {
  // Undecryptable settings count as none (as in isConfigured); read once and handed to startConnect.
  const settings = await loadServiceSettingsOrNull(prisma, who.shop, { keyring: options.keyring });
  if (!settings) return { ok: false, code: "not_configured" };
  const root = await accountRootOf(who.shop, options.adminGraphql, (options.now ?? new Date()).getTime());
  const started = await startConnect(
    prisma,
    { ...who, returnTo: root ? accountReturnPage(root) : undefined },
    {
      appUrl: options.appUrl,
      keyring: options.keyring,
      settings,
      now: options.now,
      beforeNew: async () =>
        options.mayStartNew && !(await options.mayStartNew())
          ? { ok: false, code: "busy", message: "Too many attempts: try again in a moment." }
          : null,
    },
  );
  if (started.ok) return started;
  if (started.code === "busy") return { ok: false, code: "busy", message: started.message };
  return { ok: false, code: "not_configured" };
}

export type AccountDisconnect = { ok: true; revoked: boolean } | { ok: false; code: "not_connected" };

/** Disconnect: revoke at the service (queued for the worker when it fails), delete the tokens. */
export async function disconnectAccount(
  prisma: PrismaClient,
  who: { shop: string; customerId: string },
  options: { keyring?: Keyring } = {},
): Promise<AccountDisconnect> {
  const grant = await prisma.customerGrant.findUnique({ where: { shop_customerId: who }, select: { id: true } });
  if (!grant) return { ok: false, code: "not_connected" };
  const settings = await loadServiceSettingsOrNull(prisma, who.shop, { keyring: options.keyring });
  const done = await disconnectGrant(prisma, who.shop, grant.id, { settings, keyring: options.keyring });
  return done.ok ? { ok: true, revoked: done.revoked } : { ok: false, code: "not_connected" };
}
