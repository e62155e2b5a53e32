import type { LoaderFunctionArgs } from "@remix-run/node";
import { appProxyShopper } from "../callers/app-proxy.server";

// The proxy path itself on the storefront (/apps/workspace unless the merchant changed it), answered as Liquid so
// the store's theme frames it. The link follows the store's proxy path (checked: letters, digits, "-" and "_" only).
export const loader = async (args: LoaderFunctionArgs) => {
  const { liquid, prefix } = await appProxyShopper(args);
  return liquid(
    `<div class="page-width"><h1>Workspace</h1><p><a href="${prefix}/connect">Connect your workspace</a></p></div>`,
  );
};
