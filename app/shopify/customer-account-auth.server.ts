// Requests from the customer account UI extensions (extensions/workspace-account): Shopify's session token
// checked by the library's authenticate.public.customerAccount, plus what that call leaves out. The library skips
// the audience check for extension tokens and throws its 401 without CORS headers, which a browser then reports as
// a network error instead of "signed out"; here the token must be for this app, name a shop (`dest`) and a customer
// (`sub`), and every refusal is a 401 the extension can read. The customer comes from the token only.
import { json } from "@remix-run/node";
import type { CustomerAccountContext } from "@shopify/shopify-app-remix/server";
import { env } from "../env.server";

/** Shopify's check of the session token: `authenticate.public.customerAccount` of app/shopify.server.ts. */
export type CustomerAccountCheck = (request: Request) => Promise<Pick<CustomerAccountContext, "sessionToken" | "cors">>;

export interface CustomerAccountRequest {
  shop: string;
  /** The numeric customer id, as the rest of the app keys customers (logged_in_customer_id, webhooks). */
  customerId: string;
  /** Adds the CORS headers the extension's cross-origin fetch needs. */
  cors: (response: Response) => Response;
}

const SHOP = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;
const CUSTOMER = /^gid:\/\/shopify\/Customer\/([1-9][0-9]{0,19})$/;

export const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "Authorization, Content-Type",
  "Cache-Control": "no-store",
};

/** A refusal in the routes' own JSON shape, readable cross-origin. */
export function unauthorized(): Response {
  return json(
    { error: "unauthorized", message: "Sign in to your account again." },
    { status: 401, headers: CORS_HEADERS },
  );
}

/**
 * The shop and customer of a customer account extension request, or a thrown Response: 204 for a CORS preflight,
 * 401 (with CORS headers) for a missing, expired, wrongly signed or foreign token, or one without a customer.
 */
export async function authenticateCustomerAccount(
  request: Request,
  customerAccount: CustomerAccountCheck,
): Promise<CustomerAccountRequest> {
  let sessionToken: { aud?: unknown; dest?: unknown; sub?: unknown };
  let cors: (response: Response) => Response;
  try {
    ({ sessionToken, cors } = await customerAccount(request));
  } catch (thrown) {
    // The preflight (204, CORS headers set) and the library's answer to bots (410) stand as they are.
    if (thrown instanceof Response && (thrown.status === 204 || thrown.status === 410)) throw thrown;
    throw unauthorized();
  }
  if (sessionToken.aud !== env().SHOPIFY_API_KEY) throw unauthorized(); // another app's token
  const shop = String(sessionToken.dest ?? "").replace(/^https:\/\//, "");
  const customer = CUSTOMER.exec(String(sessionToken.sub ?? ""));
  if (!SHOP.test(shop) || !customer) throw unauthorized();
  return {
    shop,
    customerId: customer[1],
    cors: (response) => {
      response.headers.set("Cache-Control", "no-store");
      return cors(response);
    },
  };
}
