import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import prisma from "../db.server";
import { logEvent } from "../connections/log.server";
import { completeOnStorefront } from "../connections/storefront-completion.server";
import { renderSignInPage } from "../connections/connect-page.server";
import { recordCustomerProfile } from "../connections/customer-profile.server";
import { authenticate, unauthenticated } from "../shopify.server";
import { adminGraphqlVia } from "../shopify/admin-api.server";
import { forShopper } from "../sync/admin-budget.server";
import { overProxyBudget, verifyAppProxy } from "../shopify/app-proxy.server";
import { onCustomerConnected } from "../sync/on-connect.server";

// Storefront {proxy path}/connect/complete?state=…&proof=… through the app proxy: the second half of the
// connection. The callback on the app's domain exchanged the code and left the tokens pending; here Shopify's
// signed logged_in_customer_id says who is logged in, and only the customer who started gets the grant
// (app/connections/storefront-completion.server.ts, completeOnStorefront). Anonymous shoppers log in and come back here.
// Every answer is a redirect on the store (or, signed out, a sign-in page); the URL carries the one-time proof, so
// no referrer and no caching.

const HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };
// The Admin API on the customer's behalf: the shop's offline session, through its Admin API cost budget.
const shopperAdmin = forShopper(adminGraphqlVia(unauthenticated.admin));

export const loader = async ({ request, context }: LoaderFunctionArgs) => {
  // 400 unless Shopify signed it, unambiguously, with a proxy path of Shopify's shape (the redirects' path)
  const proxied = await verifyAppProxy(request, authenticate.public.appProxy);
  const { liquid, url, shop, customerId, prefix } = proxied;
  const refused = await overProxyBudget("request", request, context.remoteAddress, proxied);
  if (refused) return refused;
  const outcome = await completeOnStorefront(
    prisma,
    { shop, customerId, url, prefix },
    {
      onConnected: async (event) => {
        // The name the admin shows comes from Shopify, not from anything the storefront sent.
        await recordCustomerProfile(prisma, event, { adminGraphql: shopperAdmin, log: logEvent });
        await onCustomerConnected(prisma, event);
      },
      log: logEvent,
    },
  );
  if (outcome.kind === "login") return liquid(renderSignInPage(outcome.returnPath), { headers: HEADERS });
  return redirect(outcome.location, { headers: HEADERS });
};
