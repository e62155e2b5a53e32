import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import prisma from "../db.server";
import { verifyAppProxy } from "../shopify/app-proxy.server";
import { budgets } from "../lib/shared-budget.server";
import { handleContinueCart } from "../handoff/proxy-handler.server";
import { handoffGate } from "../sync/scheduler.server";
import { forShopper } from "../sync/admin-budget.server";
import { authenticate, unauthenticated } from "../shopify.server";
import { adminGraphqlVia } from "../shopify/admin-api.server";

// Storefront POST /apps/workspace/cart ("Continue cart"): app/handoff/proxy-handler.server.ts with Shopify's proxy
// signature check (and no parameter named twice, app/shopify/app-proxy.server.ts), the Admin API (titles, availability)
// and the Storefront API (the cart's prices in the shopper's market) through the library's stored, refreshed offline session.

// The Admin API on the shopper's behalf: the shop's offline session, through its Admin API cost budget.
const shopperAdmin = forShopper(adminGraphqlVia(unauthenticated.admin));

export const loader = () => redirect("/cart", { status: 303, headers: { "Cache-Control": "no-store" } });

export const action = ({ request, context }: ActionFunctionArgs) =>
  handleContinueCart(request, {
    prisma,
    budget: budgets(), // shared by every process on PostgreSQL (app/lib/shared-budget.server.ts)
    gate: handoffGate, // the service's rate budget, shared with the imports
    peer: context.remoteAddress, // server/app.ts
    verify: (request) => verifyAppProxy(request, authenticate.public.appProxy),
    graphql: shopperAdmin,
    // The same offline token, as the Storefront API's private token (the library's own way to call it).
    storefrontFor: (shop) => async (query, variables) => {
      const { storefront } = await unauthenticated.storefront(shop);
      return (await storefront.graphql(query, { variables })).json();
    },
  });
