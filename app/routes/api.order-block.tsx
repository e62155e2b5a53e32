// The backend of the order page block (extensions/order-sync-block): GET the order's imports, POST Retry now /
// Mark as resolved. Called from Shopify's admin, cross-origin, with the admin's session token as a Bearer header:
// authenticated by the library's `authenticate.admin` (which answers the CORS preflight and an invalid token with
// 401), every answer with CORS headers. No cookie is read, so another site cannot act for a merchant (CSRF): it
// cannot mint the token, and a JSON body is never a "simple" cross-site request. Logic: app/admin/order-block.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import prisma from "../db.server";
import { env } from "../env.server";
import { authenticate } from "../shopify.server";
import { staffTokenShop } from "../shopify/staff-token";
import { readBody } from "../lib/body-limit.server";
import { loadOrderBlock, orderBlockAction, orderIdOf } from "../admin/order-block.server";

const CORS = { "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "Authorization, Content-Type" };

/**
 * Without a Bearer token the library would treat the call as a page load (a redirect), and a token that is not a
 * staff token of a shop (a customer account token, another app's) it would misread: say 401 plainly to both
 * (app/shopify/staff-token.ts). The library then checks the signature and the times.
 */
function requireToken(request: Request) {
  if (request.method === "OPTIONS") return;
  const token = /^Bearer (\S+)$/.exec(request.headers.get("Authorization") ?? "")?.[1];
  if (!token || !staffTokenShop(token, { apiKey: env().SHOPIFY_API_KEY, customDomain: env().SHOP_CUSTOM_DOMAIN })) {
    throw json(
      { error: "unauthorized", message: "A session token from Shopify's admin is required." },
      { status: 401, headers: CORS },
    );
  }
}

const badRequest = (message: string, status = 400) =>
  json({ error: "bad_request", message }, { status, headers: CORS });

export const loader = async ({ request }: LoaderFunctionArgs) => {
  requireToken(request);
  const { session, cors } = await authenticate.admin(request);
  const orderId = orderIdOf(new URL(request.url).searchParams.get("order"));
  if (!orderId) return cors(badRequest("Give the order as ?order=gid://shopify/Order/<id>."));
  return cors(json(await loadOrderBlock(prisma, session.shop, orderId)));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  requireToken(request);
  const { session, cors } = await authenticate.admin(request);
  if (request.method !== "POST") return cors(badRequest("Use POST.", 405));
  const orderId = orderIdOf(new URL(request.url).searchParams.get("order"));
  if (!orderId) return cors(badRequest("Give the order as ?order=gid://shopify/Order/<id>."));
  if (!/^application\/json\b/i.test(request.headers.get("Content-Type") ?? ""))
    return cors(badRequest("Send a JSON body.", 415));
  const body = await readBody(request, "form");
  if (!body.ok) return cors(body.response);
  let input: { intent?: unknown; recordId?: unknown };
  try {
    input = JSON.parse(new TextDecoder().decode(body.bytes)) ?? {};
  } catch {
    return cors(badRequest("The body is not JSON."));
  }
  if (typeof input !== "object") return cors(badRequest("Send an object: { intent, recordId }."));
  const result = await orderBlockAction(prisma, session.shop, orderId, {
    intent: input.intent,
    recordId: input.recordId,
  });
  return cors(json(result, { status: result.ok ? 200 : result.message === "Unknown action." ? 400 : 404 }));
};
