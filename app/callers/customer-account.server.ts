// The customer account shopper: every customer-account.* route starts here, as Shopify's `authenticate.*` would.
// The extension's session token (app/shopify/customer-account-auth.server.ts: this app's, naming a shop and a
// customer; 401 readable cross-origin otherwise), the method the route answers (405), then the shopper budgets
// (app/lib/shopper-budget.server.ts) keyed on the customer, the shop and the client's address
// (app/lib/client-address.ts): over them, a 429 in the routes' JSON shape. Every answer carries CORS headers.
import { json } from "@remix-run/node";
import { readJsonObject, type JsonObjectResult } from "../lib/body-limit.server";
import { clientAddress } from "../lib/client-address";
import { retryAfterSeconds, takeShopperBudget, type ShopperAction } from "../lib/shopper-budget.server";
import { authenticate } from "../shopify.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import {
  authenticateCustomerAccount,
  CORS_HEADERS,
  type CustomerAccountRequest,
} from "../shopify/customer-account-auth.server";
import { shopperAdmin, type CallerArgs } from "./shopper-admin.server";

export interface CustomerAccountShopper extends CustomerAccountRequest {
  /** The Admin API on the customer's behalf, within the shop's cost budget. */
  admin: AdminGraphql;
  /** Another budget (a new connect attempt's): null within it, else the 429 to answer (CORS headers set). */
  overBudget(action: ShopperAction): Promise<Response | null>;
  /** The JSON object the extension sent (4 KB at most), or the 400 or 413 to answer (CORS headers set). */
  readJson(): Promise<JsonObjectResult>;
}

/**
 * The customer of an extension request, or a thrown Response: 204 for a CORS preflight, 401 for a token that is
 * not this app's customer's, 405 for another method than `method` (an action's), the 429 over the `budget`.
 */
export async function customerAccountShopper(
  { request, context }: CallerArgs,
  options: { method?: "GET" | "POST"; budget?: ShopperAction } = {},
): Promise<CustomerAccountShopper> {
  const who = await authenticateCustomerAccount(request, authenticate.public.customerAccount);
  const { shop, customerId, cors } = who;
  if (options.method && request.method !== options.method)
    throw cors(json({ error: "method_not_allowed", message: `Use ${options.method}.` }, { status: 405 }));
  const overBudget = async (action: ShopperAction) => {
    const taken = await takeShopperBudget(action, {
      address: clientAddress(request, context.remoteAddress),
      shop,
      customerId,
    });
    if (taken.ok) return null;
    return cors(
      json(
        { error: "busy", message: "Too many attempts. Wait a moment and try again." },
        { status: 429, headers: { ...CORS_HEADERS, "Retry-After": retryAfterSeconds(taken.retryAfterMs) } },
      ),
    );
  };
  const refused = await overBudget(options.budget ?? "request");
  if (refused) throw refused;
  return {
    ...who,
    admin: shopperAdmin,
    overBudget,
    readJson: async () => {
      const body = await readJsonObject(request, 4096);
      return body.ok ? body : { ok: false, response: cors(body.response) };
    },
  };
}
