// Connect and disconnect from Shopify's customer account pages (extensions/workspace-account). Connecting reuses the
// storefront flow's steps (oauth-start, oauth-callback, storefront-completion, where Shopify signs who is signed
// in); the shopper then comes back to the account's profile page, at the root Shopify's Admin API gives
// (./account-root.server.ts), and the pages ask how the attempt ended (./account-profile.server.ts;
// docs/decisions/0010-account-connect-without-own-address.md). Shop and customer come from the verified session
// token only (app/callers/customer-account.server.ts).
import type { PrismaClient } from "@prisma/client";
import type { Keyring } from "../crypto/secret-box.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { accountRootOf } from "./account-root.server";
import { disconnectGrant } from "./grant-lifecycle.server";
import { startConnect } from "./oauth-start.server";
import { loadServiceSettingsOrNull } from "./settings-loader.server";

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
