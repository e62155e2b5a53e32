import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { continueCart } from "../callers/app-proxy.server";

// Storefront POST /apps/workspace/cart ("Continue cart"): app/handoff/proxy-handler.server.ts behind Shopify's
// proxy check, wired in app/callers/app-proxy.server.ts. A GET goes back to the cart.
export const loader = () => redirect("/cart", { status: 303, headers: { "Cache-Control": "no-store" } });

export const action = (args: ActionFunctionArgs) => continueCart(args);
