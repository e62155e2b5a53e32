import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import prisma from "../db.server";
import { env } from "../env.server";
import { logEvent } from "../connections/log.server";
import { accountProfile, disconnectAccount, startAccountConnect } from "../connections/customer-account.server";
import { readBody } from "../lib/body-limit.server";
import { authenticate, unauthenticated } from "../shopify.server";
import { adminGraphqlVia } from "../shopify/admin-api.server";
import { forShopper } from "../sync/admin-budget.server";
import { authenticateCustomerAccount, overShopperBudget } from "../shopify/customer-account-auth.server";

// /customer-account/connection: the customer account extension's profile block and Connect workspace page. GET: the
// customer's connection and how their latest Connect attempt ended. POST {intent}: "connect" (a one-time
// authorization URL; the attempt completes on the store and comes back to the account's profile page), "disconnect".
// Shop and customer come from the session token only (app/shopify/customer-account-auth.server.ts); the domain is
// app/connections/customer-account.server.ts.

// The Admin API on the customer's behalf: the shop's offline session, through its Admin API cost budget.
const shopperAdmin = forShopper(adminGraphqlVia(unauthenticated.admin));

export const loader = async ({ request, context }: LoaderFunctionArgs) => {
  const { shop, customerId, cors } = await authenticateCustomerAccount(request, authenticate.public.customerAccount);
  const refused = await overShopperBudget("request", request, context.remoteAddress, { shop, customerId });
  if (refused) return cors(refused);
  return cors(json(await accountProfile(prisma, shop, customerId)));
};

const bad = (message: string) => json({ error: "bad_request", message }, { status: 400 });

export const action = async ({ request, context }: ActionFunctionArgs) => {
  const who = await authenticateCustomerAccount(request, authenticate.public.customerAccount);
  const { shop, customerId, cors } = who;
  if (request.method !== "POST")
    return cors(json({ error: "method_not_allowed", message: "Use POST." }, { status: 405 }));
  const refused = await overShopperBudget("request", request, context.remoteAddress, { shop, customerId });
  if (refused) return cors(refused);
  const body = await readBody(request, 4096);
  if (!body.ok) return cors(body.response);
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body.bytes));
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return cors(bad("Send a JSON object."));
    input = parsed as Record<string, unknown>;
  } catch {
    return cors(bad("Send a JSON object."));
  }

  switch (input.intent) {
    case "connect": {
      // A new attempt may cost an Admin API query and a state row: the connect budget is asked then only
      // (app/lib/shopper-budget.server.ts); the page's link handed out again costs neither.
      const refusal: { response?: Response } = {};
      const started = await startAccountConnect(
        prisma,
        { shop, customerId },
        {
          appUrl: env().SHOPIFY_APP_URL,
          adminGraphql: shopperAdmin,
          mayStartNew: async () =>
            !(refusal.response =
              (await overShopperBudget("connect", request, context.remoteAddress, { shop, customerId })) ?? undefined),
        },
      );
      if (!started.ok && started.code === "busy" && refusal.response) return cors(refusal.response);
      if (!started.ok)
        return cors(
          json(
            { error: "not_configured", message: "Workspace connections are not available at this store yet." },
            { status: 409 },
          ),
        );
      logEvent("account_connect_started", { shop, customerId });
      return cors(json({ authorizationUrl: started.authorizationUrl }));
    }
    case "disconnect": {
      const done = await disconnectAccount(prisma, { shop, customerId });
      if (done.ok) logEvent("account_disconnected", { shop, customerId, revoked: done.revoked });
      return cors(json({ disconnected: done.ok, ...(await accountProfile(prisma, shop, customerId)) }));
    }
    default:
      return cors(bad('intent must be "connect" or "disconnect".'));
  }
};
