import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import prisma from "../db.server";
import { logEvent } from "../connections/connections-log.server";
import { handleOAuthCallback } from "../connections/oauth-callback.server";
import { neverFramedHeaders } from "../shopify/frame-ancestors";
import { pageTitle } from "../lib/page-title";
import { clientAddress } from "../lib/client-address";
import { retryAfterSeconds, takeShopperBudget } from "../lib/shopper-budget.server";

// The OAuth redirect_uri (${SHOPIFY_APP_URL}/connect/callback), on the app's own domain. The state row says which
// shop and customer this is; app/connections/oauth-callback.server.ts does the checks and the exchange, and keeps the
// tokens pending. Nothing is stored here: a success goes on to the store's completion step (proxy.connect.complete),
// where the logged-in customer must be the one who started; every other outcome with a known store goes back to
// the store's connect page with a result code.

// The service sends the shopper's browser here, top level: never inside the admin or anyone's frame.
export const headers = neverFramedHeaders;

export const loader = async ({ request, context }: LoaderFunctionArgs) => {
  // Anyone can call it: the caller's address has a budget (app/lib/shopper-budget.server.ts) before any lookup.
  const taken = await takeShopperBudget("request", { address: clientAddress(request, context.remoteAddress) });
  if (!taken.ok) {
    const headers = { "Cache-Control": "no-store", "Retry-After": retryAfterSeconds(taken.retryAfterMs) };
    return data(
      { message: "Too many attempts from your network. Wait a minute, then open the link again." },
      { status: 429, headers },
    );
  }
  const outcome = await handleOAuthCallback(prisma, request.url, { log: logEvent });
  if (outcome.kind === "redirect") {
    return redirect(outcome.location, { headers: { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
  }
  return data({ message: outcome.message }, { status: outcome.status, headers: { "Cache-Control": "no-store" } });
};

export const meta: MetaFunction = () => [...pageTitle("Workspace connection"), { name: "robots", content: "noindex" }];

export default function ConnectCallback() {
  const { message } = useLoaderData<typeof loader>();
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 560, margin: "64px auto", padding: 16 }}>
      <h1>Workspace connection</h1>
      <p data-result="invalid_state">{message}</p>
      <p>Nothing was connected.</p>
    </main>
  );
}
