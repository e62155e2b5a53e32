import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import prisma from "../db.server";
import { appProxyShopper, type AppProxyShopper } from "../callers/app-proxy.server";
import { checkCsrfToken, csrfToken, CSRF_FIELD } from "../lib/csrf.server";
import { readForm } from "../lib/form.server";
import { env } from "../env.server";
import { isResultCode, renderConnectPage, renderSignInPage } from "../connections/connect-page.server";
import { getCustomerConnection } from "../connections/grant-lifecycle.server";
import { startConnect } from "../connections/oauth-start.server";
import { getSettingsView } from "../connections/settings-view.server";

// Storefront {proxy path}/connect (/apps/workspace/connect unless the merchant changed it) through the app proxy:
// `shop` and `logged_in_customer_id` are Shopify's, checked by app/callers/app-proxy.server.ts; nothing else in the
// request is trusted. GET shows the page; POST starts OAuth for the logged-in customer, if it carries the page's
// CSRF token (app/lib/csrf.server.ts). Anonymous shoppers are sent to log in. Links and the OAuth return go to the
// store's own proxy path (`prefix`): the merchant may have changed it from /apps/workspace.

const NO_STORE = { "Cache-Control": "no-store" };

// Signed out: a page whose sign-in link the theme fills in (routes.account_login_url), so it leads to the store's
// own account version: /account/login only exists on legacy customer accounts.
const signIn = ({ liquid, prefix }: AppProxyShopper) =>
  liquid(renderSignInPage(`${prefix}/connect`), { headers: NO_STORE });

/** The connect page for the signed-in customer, with a fresh CSRF token. */
async function connectPage(
  { liquid, shop, prefix }: AppProxyShopper,
  customerId: string,
  page: { result: Parameters<typeof renderConnectPage>[0]["result"]; status?: number; configured?: false },
) {
  const [connection, settings] = await Promise.all([
    getCustomerConnection(prisma, shop, customerId),
    page.configured === false ? { configured: false } : getSettingsView(prisma, shop),
  ]);
  // The result code is only a hint from the redirect; "connected" is shown only when it is true for this customer.
  const result = page.result === "connected" && connection?.status !== "active" ? null : page.result;
  const html = renderConnectPage({
    prefix,
    configured: settings.configured,
    result,
    connection,
    csrfToken: csrfToken(`${shop}:${customerId}`),
  });
  return liquid(html, { status: page.status, headers: NO_STORE });
}

export const loader = async (args: LoaderFunctionArgs) => {
  const shopper = await appProxyShopper(args);
  if (!shopper.customerId) return signIn(shopper);
  const param = shopper.url.searchParams.get("result");
  return connectPage(shopper, shopper.customerId, { result: isResultCode(param) ? param : null });
};

export const action = async (args: ActionFunctionArgs) => {
  const shopper = await appProxyShopper(args);
  const { shop, customerId, prefix } = shopper;
  if (!customerId) return signIn(shopper);
  const form = await readForm(args.request);
  // Not from the page this customer was shown (another site's form, or a page left open too long): show it again.
  if (!checkCsrfToken(form.get(CSRF_FIELD), `${shop}:${customerId}`))
    return connectPage(shopper, customerId, { result: null, status: 403 });
  // Each start writes a state row: a budget of its own (app/lib/shopper-budget.server.ts).
  const overConnect = await shopper.overBudget("connect");
  if (overConnect) return overConnect;
  const started = await startConnect(
    prisma,
    { shop, customerId, returnTo: `${prefix}/connect` },
    { appUrl: env().SHOPIFY_APP_URL },
  );
  if (!started.ok)
    return connectPage(shopper, customerId, { result: "not_configured", status: 409, configured: false });
  return redirect(started.authorizationUrl, { headers: NO_STORE });
};
