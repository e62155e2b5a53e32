import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import prisma from "../db.server";
import { readForm } from "../lib/form.server";
import { env } from "../env.server";
import { authenticate } from "../shopify.server";
import { renderConnectPage } from "../connections/connect-page.server";
import { getCustomerConnection } from "../connections/grant-lifecycle.server";
import { isResultCode } from "../connections/connect-page.server";
import { proxyPrefix } from "../connections/oauth-common.server";
import { startConnect } from "../connections/oauth-start.server";
import { getSettingsView } from "../connections/settings.server";

// Storefront /apps/workspace/connect through the app proxy. authenticate.public.appProxy checks Shopify's
// signature (400 otherwise), so `shop` and `logged_in_customer_id` can be trusted; nothing else in the request is.
// GET shows the page; POST starts OAuth for the logged-in customer. Anonymous shoppers are sent to log in.

async function verify(request: Request) {
  const { liquid } = await authenticate.public.appProxy(request);
  const url = new URL(request.url);
  const shop = url.searchParams.get("shop")!;
  const customerId = url.searchParams.get("logged_in_customer_id") ?? "";
  const prefix = proxyPrefix(url.searchParams.get("path_prefix"));
  return { liquid, url, shop, customerId, prefix };
}

// Relative to the storefront: the shopper's browser is on the shop's own domain here. The prefix is checked
// against a strict pattern (proxyPrefix), so it is safe in the query as it is.
const loginRedirect = (prefix: string) =>
  redirect(`/account/login?return_url=${prefix}/connect`, {
    headers: { "Cache-Control": "no-store" },
  });

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { liquid, url, shop, customerId, prefix } = await verify(request);
  if (!/^\d+$/.test(customerId)) return loginRedirect(prefix);
  const [connection, settings] = await Promise.all([
    getCustomerConnection(prisma, shop, customerId),
    getSettingsView(prisma, shop),
  ]);
  // The result code is only a hint from the redirect; "connected" is shown only when it is true for this customer.
  const param = url.searchParams.get("result");
  const result = isResultCode(param) && (param !== "connected" || connection?.status === "active") ? param : null;
  return liquid(
    renderConnectPage({ prefix, configured: settings.configured, result, connection }),
    { headers: { "Cache-Control": "no-store" } },
  );
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { liquid, shop, customerId, prefix } = await verify(request);
  if (!/^\d+$/.test(customerId)) return loginRedirect(prefix);
  const form = await readForm(request);
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : null;
  };
  const started = await startConnect(
    prisma,
    {
      shop,
      customerId,
      customerName: text("customer_name"),
      customerEmail: text("customer_email"),
      returnTo: `${prefix}/connect`,
    },
    { appUrl: env().SHOPIFY_APP_URL },
  );
  if (!started.ok) {
    const connection = await getCustomerConnection(prisma, shop, customerId);
    return liquid(renderConnectPage({ prefix, configured: false, result: "not_configured", connection }), {
      status: 409,
      headers: { "Cache-Control": "no-store" },
    });
  }
  return redirect(started.authorizationUrl, { headers: { "Cache-Control": "no-store" } });
};
