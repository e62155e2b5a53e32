import type { ActionFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import prisma from "../db.server";
import { authenticate, unauthenticated } from "../shopify.server";
import { Budget } from "../handoff/budget";
import { formToRaw } from "../handoff/cart-input";
import { continueCart, type FlowResult } from "../handoff/flow.server";
import type { AdminGraphql } from "../handoff/resolver.server";
import { failurePage, jsonBody, readBounded, safeClaimUrl } from "../handoff/response.server";
import { loadHandoffSettings } from "../handoff/settings.server";

// Storefront POST /apps/workspace/cart ("Continue cart"). authenticate.public.appProxy checks Shopify's signature
// (400 otherwise), so `shop` and `logged_in_customer_id` are trusted; from the body only the cart token, variant
// ids, quantities and locale are read (app/handoff/cart-input.ts). JSON in → JSON out (the block's script);
// a form → 303 to the claim URL, or a page with the message and a link back to the cart.

const budget = new Budget();
const noStore = { "Cache-Control": "no-store" };

export const loader = () => redirect("/cart", { status: 303, headers: noStore });

export const action = async ({ request }: ActionFunctionArgs) => {
  const { liquid } = await authenticate.public.appProxy(request);
  const url = new URL(request.url);
  const shop = url.searchParams.get("shop")!;
  const customerId = url.searchParams.get("logged_in_customer_id") || null;
  const isJson = (request.headers.get("content-type") ?? "").startsWith("application/json");

  const text = await readBounded(request);
  let raw: unknown = null;
  if (text !== null) {
    if (isJson) {
      try {
        raw = JSON.parse(text);
      } catch {
        raw = null;
      }
    } else {
      raw = formToRaw(new URLSearchParams(text));
    }
  }

  const graphql: AdminGraphql = async (query, variables) => {
    const { admin } = await unauthenticated.admin(shop);
    return (await admin.graphql(query, { variables })).json();
  };
  const result = await continueCart(
    { prisma, graphql, budget, loadSettings: () => loadHandoffSettings(prisma, shop) },
    { shop, customerId, ip: (request.headers.get("x-forwarded-for") ?? "").split(",")[0].trim(), raw },
  );
  // Only an http(s) claim URL is followed: the browser must never be sent to a javascript: or data: address.
  const outcome: FlowResult =
    result.ok && !safeClaimUrl(result.claimUrl) ? { ok: false, code: "failed", status: 502, locale: result.locale } : result;

  if (isJson) {
    const headers: Record<string, string> = { ...noStore };
    if (!outcome.ok && outcome.retryAfterMs) headers["Retry-After"] = String(Math.ceil(outcome.retryAfterMs / 1000));
    return json(jsonBody(outcome), { status: outcome.ok ? 200 : outcome.status, headers });
  }
  if (outcome.ok) return redirect(outcome.claimUrl, { status: 303, headers: noStore });
  return liquid(failurePage(outcome), { headers: noStore });
};
