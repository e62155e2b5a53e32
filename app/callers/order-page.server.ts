// Staff on an order page: the order page block's calls (extensions/order-sync-block), from Shopify's admin,
// cross-origin, with the admin's session token as a Bearer header. Only a staff token of a shop is handed to the
// library's `authenticate.admin` (app/shopify/staff-token.ts: without one the library would take the call for a
// page load, or misread another kind of token); it checks the signature and the times and answers the CORS
// preflight. No cookie is read, so another site cannot act for a merchant: it cannot mint the token, and a JSON
// body is never a "simple" cross-site request (415 otherwise). Every answer carries CORS headers.
import { json } from "@remix-run/node";
import { orderIdOf } from "../admin/order-block.server";
import { env } from "../env.server";
import { readJsonObject, type JsonObjectResult } from "../lib/body-limit.server";
import { authenticate } from "../shopify.server";
import { staffTokenShop } from "../shopify/staff-token";
import type { CallerArgs } from "./shopper-admin.server";

const CORS = { "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "Authorization, Content-Type" };

const badRequest = (message: string, status = 400) =>
  json({ error: "bad_request", message }, { status, headers: CORS });

export interface OrderPageStaff {
  shop: string;
  /** The order the block is on (?order=gid://shopify/Order/<id>). */
  orderId: string;
  /** Adds the CORS headers the block's cross-origin fetch needs. */
  cors: (response: Response) => Response;
  /** The JSON object the block sent, or the 415, 400 or 413 to answer (CORS headers set). */
  readJson(): Promise<JsonObjectResult>;
}

/**
 * The shop and order of a staff member's call from the order page block, or a thrown Response: 401 without a
 * staff token of a shop (or with one the library refuses), 405 for another method than `method` (an action's),
 * 400 without an order id.
 */
export async function orderPageStaff(
  { request }: Pick<CallerArgs, "request">,
  options: { method?: "POST" } = {},
): Promise<OrderPageStaff> {
  if (request.method !== "OPTIONS") {
    const token = /^Bearer (\S+)$/.exec(request.headers.get("Authorization") ?? "")?.[1];
    if (!token || !staffTokenShop(token, { apiKey: env().SHOPIFY_API_KEY, customDomain: env().SHOP_CUSTOM_DOMAIN }))
      throw json(
        { error: "unauthorized", message: "A session token from Shopify's admin is required." },
        { status: 401, headers: CORS },
      );
  }
  const { session, cors } = await authenticate.admin(request);
  if (options.method && request.method !== options.method) throw cors(badRequest(`Use ${options.method}.`, 405));
  const orderId = orderIdOf(new URL(request.url).searchParams.get("order"));
  if (!orderId) throw cors(badRequest("Give the order as ?order=gid://shopify/Order/<id>."));
  return {
    shop: session.shop,
    orderId,
    cors,
    readJson: async () => {
      if (!/^application\/json\b/i.test(request.headers.get("Content-Type") ?? ""))
        return { ok: false, response: cors(badRequest("Send a JSON body.", 415)) };
      const body = await readJsonObject(request, "form");
      return body.ok ? body : { ok: false, response: cors(body.response) };
    },
  };
}
