import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import prisma from "../db.server";
import { appProxyShopper, connectionHooks } from "../callers/app-proxy.server";
import { completeConnect } from "../connections/storefront-completion.server";
import { renderSignInPage } from "../connections/connect-page.server";

// Storefront {proxy path}/connect/complete?state=…&proof=… through the app proxy: the second half of the
// connection. The callback on the app's domain exchanged the code and left the tokens pending; here Shopify's
// signed logged_in_customer_id says who is logged in, and only the customer who started gets the grant
// (app/connections/storefront-completion.server.ts). Anonymous shoppers log in and come back here.
// Every answer is a redirect on the store (or, signed out, a sign-in page); the URL carries the one-time proof, so
// no referrer and no caching.

const HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };

export const loader = async (args: LoaderFunctionArgs) => {
  const { liquid, url, shop, customerId, prefix } = await appProxyShopper(args);
  const outcome = await completeConnect(prisma, { shop, customerId, url, prefix }, connectionHooks);
  if (outcome.kind === "login") return liquid(renderSignInPage(outcome.returnPath), { headers: HEADERS });
  return redirect(outcome.location, { headers: HEADERS });
};
