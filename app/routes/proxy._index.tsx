import type { LoaderFunctionArgs } from "@remix-run/node";
import { verifyAppProxy } from "../shopify/app-proxy.server";

// /apps/workspace on the storefront: verifies Shopify's proxy signature and an unambiguous query (400 otherwise)
// and answers as Liquid, so the store's theme frames it.
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { liquid } = await verifyAppProxy(request);
  return liquid(`<div class="page-width"><h1>Workspace</h1><p><a href="/apps/workspace/connect">Connect your workspace</a></p></div>`);
};
