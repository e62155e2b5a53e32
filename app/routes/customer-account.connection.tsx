import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import prisma from "../db.server";
import { env } from "../env.server";
import { customerAccountShopper } from "../callers/customer-account.server";
import { logEvent } from "../connections/connections-log.server";
import { disconnectAccount, startAccountConnect } from "../connections/account-connect.server";
import { accountProfile } from "../connections/account-profile.server";

// /customer-account/connection: the customer account extension's profile block and Connect workspace page. GET: the
// customer's connection and how their latest Connect attempt ended. POST {intent}: "connect" (a one-time
// authorization URL; the attempt completes on the store and comes back to the account's profile page), "disconnect".
// Shop and customer come from the session token only (app/callers/customer-account.server.ts); the domain is
// app/connections/account-profile.server.ts and account-connect.server.ts.

export const loader = async (args: LoaderFunctionArgs) => {
  const { shop, customerId, cors } = await customerAccountShopper(args);
  return cors(json(await accountProfile(prisma, shop, customerId)));
};

export const action = async (args: ActionFunctionArgs) => {
  const shopper = await customerAccountShopper(args, { method: "POST" });
  const { shop, customerId, cors } = shopper;
  const body = await shopper.readJson();
  if (!body.ok) return body.response;
  switch (body.value.intent) {
    case "connect": {
      // A new attempt may cost an Admin API query and a state row: the connect budget is asked then only
      // (app/lib/shopper-budget.server.ts); the page's link handed out again costs neither.
      let refused: Response | null = null;
      const started = await startAccountConnect(
        prisma,
        { shop, customerId },
        {
          appUrl: env().SHOPIFY_APP_URL,
          adminGraphql: shopper.admin,
          mayStartNew: async () => !(refused = await shopper.overBudget("connect")),
        },
      );
      if (!started.ok && started.code === "busy" && refused) return refused;
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
      return cors(
        json({ error: "bad_request", message: 'intent must be "connect" or "disconnect".' }, { status: 400 }),
      );
  }
};
