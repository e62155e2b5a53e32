import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { overProxyBudget, verifyAppProxy } from "../shopify/app-proxy.server";
import { checkCsrfToken, csrfToken, CSRF_FIELD } from "../lib/csrf.server";
import { readForm } from "../lib/form.server";
import { env } from "../env.server";
import { renderConnectPage, renderSignInPage } from "../connections/connect-page.server";
import { getCustomerConnection } from "../connections/grant-lifecycle.server";
import { isResultCode } from "../connections/connect-page.server";
import { startConnect } from "../connections/oauth-start.server";
import { getSettingsView } from "../connections/settings.server";

// Storefront {proxy path}/connect (/apps/workspace/connect unless the merchant changed it) through the app proxy. verifyAppProxy checks Shopify's signature and that no
// parameter is repeated (400 otherwise), so `shop` and `logged_in_customer_id` can be trusted; nothing else in the
// request is. GET shows the page; POST starts OAuth for the logged-in customer, if it carries the page's CSRF token
// (app/lib/csrf.server.ts). Anonymous shoppers are sent to log in.

// Links and the OAuth return go to the store's own proxy path (`prefix`, from Shopify's signed path_prefix): the
// merchant may have changed it from /apps/workspace.
const verify = (request: Request) => verifyAppProxy(request, authenticate.public.appProxy);

const NO_STORE = { "Cache-Control": "no-store" };

// Signed out: a page whose sign-in link the theme fills in (routes.account_login_url), so it leads to the store's
// own account version: /account/login only exists on legacy customer accounts.
type Liquid = Awaited<ReturnType<typeof verify>>["liquid"];
const signIn = (liquid: Liquid, prefix: string) => liquid(renderSignInPage(`${prefix}/connect`), { headers: NO_STORE });

export const loader = async ({ request, context }: LoaderFunctionArgs) => {
  const proxied = await verify(request);
  const { liquid, url, shop, customerId, prefix } = proxied;
  const refused = await overProxyBudget("request", request, context.remoteAddress, proxied);
  if (refused) return refused;
  if (!customerId) return signIn(liquid, prefix);
  const [connection, settings] = await Promise.all([
    getCustomerConnection(prisma, shop, customerId),
    getSettingsView(prisma, shop),
  ]);
  // The result code is only a hint from the redirect; "connected" is shown only when it is true for this customer.
  const param = url.searchParams.get("result");
  const result = isResultCode(param) && (param !== "connected" || connection?.status === "active") ? param : null;
  return liquid(
    renderConnectPage({
      prefix,
      configured: settings.configured,
      result,
      connection,
      csrfToken: csrfToken(`${shop}:${customerId}`),
    }),
    { headers: NO_STORE },
  );
};

export const action = async ({ request, context }: ActionFunctionArgs) => {
  const proxied = await verify(request);
  const { liquid, shop, customerId, prefix } = proxied;
  const refused = await overProxyBudget("request", request, context.remoteAddress, proxied);
  if (refused) return refused;
  if (!customerId) return signIn(liquid, prefix);
  const form = await readForm(request);
  if (!checkCsrfToken(form.get(CSRF_FIELD), `${shop}:${customerId}`)) {
    // Not from the page this customer was shown (another site's form, or a page left open too long): show it again.
    const [connection, settings] = await Promise.all([
      getCustomerConnection(prisma, shop, customerId),
      getSettingsView(prisma, shop),
    ]);
    const page = {
      prefix,
      configured: settings.configured,
      result: null,
      connection,
      csrfToken: csrfToken(`${shop}:${customerId}`),
    };
    return liquid(renderConnectPage(page), { status: 403, headers: NO_STORE });
  }
  // Each start writes a state row: a budget of its own (app/lib/shopper-budget.server.ts).
  const overConnect = await overProxyBudget("connect", request, context.remoteAddress, proxied);
  if (overConnect) return overConnect;
  const started = await startConnect(
    prisma,
    { shop, customerId, returnTo: `${prefix}/connect` },
    { appUrl: env().SHOPIFY_APP_URL },
  );
  if (!started.ok) {
    const connection = await getCustomerConnection(prisma, shop, customerId);
    const page = {
      prefix,
      configured: false,
      result: "not_configured" as const,
      connection,
      csrfToken: csrfToken(`${shop}:${customerId}`),
    };
    return liquid(renderConnectPage(page), { status: 409, headers: NO_STORE });
  }
  return redirect(started.authorizationUrl, { headers: NO_STORE });
};
