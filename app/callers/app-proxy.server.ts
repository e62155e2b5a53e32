// The app proxy's shopper: every proxy.* route starts here, as Shopify's `authenticate.*` would. Shopify's
// signature and an unambiguous query (app/shopify/app-proxy.server.ts: 400 otherwise), then the shopper budgets
// (app/lib/shopper-budget.server.ts) keyed on the shop, the logged-in customer and the address Shopify's proxy saw
// (app/lib/client-address.ts): over them, the 429 as a page in the store's theme. Continue cart verifies the same
// way inside its handler, with budgets of its own (app/handoff/flow.server.ts), and is wired here too.
import prisma from "../db.server";
import { logEvent } from "../connections/connections-log.server";
import { recordCustomerProfile } from "../connections/customer-profile.server";
import type { ConnectStepOptions } from "../connections/oauth-common.server";
import { handleContinueCart } from "../handoff/proxy-handler.server";
import { clientAddress } from "../lib/client-address";
import { budgets } from "../lib/shared-budget.server";
import { retryAfterSeconds, takeShopperBudget, type ShopperAction } from "../lib/shopper-budget.server";
import { authenticate, unauthenticated } from "../shopify.server";
import { verifyAppProxy, type ProxyRequest } from "../shopify/app-proxy.server";
import { onCustomerConnected } from "../sync/on-connect.server";
import { handoffGate } from "../service/client.server";
import { shopperAdmin, type CallerArgs } from "./shopper-admin.server";

export interface AppProxyShopper extends ProxyRequest {
  /** Another budget (a connect's, which writes a state row): null within it, else the 429 page to answer. */
  overBudget(action: ShopperAction): Promise<Response | null>;
}

/**
 * The verified shopper of a proxy request within the `action` budget, or a thrown Response: Shopify's 400 for a
 * bad signature or an ambiguous query, the 429 page over the budget.
 */
export async function appProxyShopper(
  { request, context }: CallerArgs,
  action: ShopperAction = "request",
): Promise<AppProxyShopper> {
  const proxied = await verifyAppProxy(request, authenticate.public.appProxy);
  const overBudget = (a: ShopperAction) => overProxyBudget(a, request, context.remoteAddress, proxied);
  const refused = await overBudget(action);
  if (refused) throw refused;
  return { ...proxied, overBudget };
}

/**
 * The shopper budgets for a verified proxy request: its shop, its logged-in customer and the address Shopify's
 * proxy saw (`peer`: the socket's). Null within them, else the 429 to answer, a page in the store's theme.
 */
export async function overProxyBudget(
  action: ShopperAction,
  request: Request,
  peer: string | undefined,
  proxied: ProxyRequest,
): Promise<Response | null> {
  const taken = await takeShopperBudget(action, {
    address: clientAddress(request, peer, { appProxy: true }),
    shop: proxied.shop,
    customerId: proxied.customerId,
  });
  if (taken.ok) return null;
  return proxied.liquid(
    `<div class="page-width"><h1>Workspace</h1><p>Too many attempts. Wait a minute, then try again.</p></div>`,
    {
      status: 429,
      headers: { "Retry-After": retryAfterSeconds(taken.retryAfterMs), "Cache-Control": "no-store" },
    },
  );
}

/**
 * What a completed connection sets off, wired once (app/connections/storefront-completion.server.ts calls it for
 * the storefront's connect and the account's): the customer's name from Shopify, not from anything the
 * storefront sent, then the customer's waiting imports (app/sync/on-connect.server.ts).
 */
export const connectionHooks: ConnectStepOptions = {
  onConnected: async (event) => {
    await recordCustomerProfile(prisma, event, { adminGraphql: shopperAdmin, log: logEvent });
    await onCustomerConnected(prisma, event);
  },
  log: logEvent,
};

/**
 * Continue cart (POST {proxy path}/cart): app/handoff/proxy-handler.server.ts with its real collaborators: Shopify's
 * proxy check, the shopper's Admin API, the Storefront API for the cart's market prices (the same offline token,
 * as the Storefront API's private token: the library's own way to call it), the shared budgets and the service's
 * rate budget shared with the imports (handoffGate).
 */
export const continueCart = ({ request, context }: CallerArgs): Promise<Response> =>
  handleContinueCart(request, {
    prisma,
    budget: budgets(),
    gate: handoffGate,
    peer: context.remoteAddress,
    verify: (request) => verifyAppProxy(request, authenticate.public.appProxy),
    graphql: shopperAdmin,
    storefrontFor: (shop) => async (query, variables) => {
      const { storefront } = await unauthenticated.storefront(shop);
      return (await storefront.graphql(query, { variables })).json();
    },
  });
