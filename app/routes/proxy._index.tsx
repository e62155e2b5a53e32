import type { LoaderFunctionArgs } from "@remix-run/node";
import { authenticate } from "../shopify.server";
import { overProxyBudget, verifyAppProxy } from "../shopify/app-proxy.server";

// The proxy path itself on the storefront (/apps/workspace unless the merchant changed it): verifies Shopify's proxy
// signature and an unambiguous query (400 otherwise) and answers as Liquid, so the store's theme frames it. The
// link follows the store's proxy path (checked by verifyAppProxy: letters, digits, "-" and "_" only).
export const loader = async ({ request, context }: LoaderFunctionArgs) => {
  const proxied = await verifyAppProxy(request, authenticate.public.appProxy);
  const refused = await overProxyBudget("request", request, context.remoteAddress, proxied);
  if (refused) return refused;
  const { liquid, prefix } = proxied;
  return liquid(
    `<div class="page-width"><h1>Workspace</h1><p><a href="${prefix}/connect">Connect your workspace</a></p></div>`,
  );
};
