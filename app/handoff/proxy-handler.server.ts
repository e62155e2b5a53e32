// The storefront's POST {proxy path}/cart (/apps/workspace/cart unless the merchant changed it), without Remix:
// the route passes Shopify's proxy check and the Admin API client, the bench passes stubs for the service and the
// Admin API. The signature check comes first (a bad or
// missing one is Shopify's 400); from the body only the cart token, variant ids, quantities and locale are read.
// JSON in → JSON out (the block's script); a form → 303 to the claim URL, or a page with the message and a link
// back to the cart.
import type { PrismaClient } from "@prisma/client";
import { env } from "../env.server";
import { readBody } from "../lib/body-limit.server";
import { forwardedAddress } from "../lib/client-address";
import type { ServiceDepsOverrides } from "../service/client.server";
import type { Budget } from "./budget";
import { formToRaw } from "./cart-input";
import { continueCart, type FlowResult, type ServiceGate } from "./flow.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import type { StorefrontGraphql } from "./market-prices.server";
import { failurePage, jsonBody, safeClaimUrl } from "./response.server";
import { loadHandoffSettings } from "./settings.server";

export interface ProxyHandlerDeps {
  prisma: PrismaClient;
  budget: Budget;
  /**
   * Shopify's proxy check (app/shopify/app-proxy.server.ts): throws Shopify's 400 response for a bad or missing
   * signature; the shop and the logged-in customer are the ones it verified.
   */
  verify: (request: Request) => Promise<{ liquid: (body: string, init?: ResponseInit) => Response; shop: string; customerId: string | null }>;
  graphql: AdminGraphql;
  /** The Storefront API for the cart's market prices (docs/continue-cart-prices.md); absent: base prices. */
  storefrontFor?: (shop: string) => StorefrontGraphql;
  service?: ServiceDepsOverrides;
  /** The service's rate budget, shared with the imports (app/runtime/service-scheduler.server.ts). */
  gate?: ServiceGate;
  /** The socket's peer address (server/app.ts puts it in the load context). */
  peer?: string;
  /** Our own proxies in front of the app; default TRUSTED_PROXY_HOPS. */
  trustedHops?: number;
  /** Handoffs per minute for one shop; default HANDOFF_SHOP_PER_MINUTE. */
  shopPerMinute?: number;
}

/**
 * The shopper's address: the one Shopify's app proxy saw. The request passed Shopify's signature check, so it came
 * through Shopify's proxy, which appended the shopper's address; behind it our own `trustedHops` proxies appended
 * theirs. So the entry one hop beyond ours, counted from the right; never the leftmost, which the shopper writes.
 */
export function shopperAddress(request: Request, peer: string | undefined, trustedHops: number): string {
  return forwardedAddress(request.headers.get("x-forwarded-for"), peer, trustedHops + 1);
}

const NO_STORE = { "Cache-Control": "no-store" };

// 200 lines of "variantId:quantity" with a token fit in a few KB: a form's limit. Larger or unreadable: no input.
async function readInput(request: Request, isJson: boolean): Promise<unknown> {
  const body = await readBody(request, "form");
  if (!body.ok) return null;
  const text = new TextDecoder().decode(body.bytes);
  if (!isJson) return formToRaw(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export async function handleContinueCart(request: Request, deps: ProxyHandlerDeps): Promise<Response> {
  const { liquid, shop, customerId } = await deps.verify(request);
  const isJson = (request.headers.get("content-type") ?? "").startsWith("application/json");
  const raw = await readInput(request, isJson);

  const result = await continueCart(
    {
      prisma: deps.prisma,
      graphql: deps.graphql,
      storefront: deps.storefrontFor?.(shop),
      budget: deps.budget,
      shopPerMinute: deps.shopPerMinute ?? env().HANDOFF_SHOP_PER_MINUTE,
      gate: deps.gate,
      loadSettings: () => loadHandoffSettings(deps.prisma, shop),
      service: deps.service,
    },
    { shop, customerId, ip: shopperAddress(request, deps.peer, deps.trustedHops ?? env().TRUSTED_PROXY_HOPS), raw },
  );
  // Only a claim URL on the configured service's origin (https, or http on loopback) is followed: the browser is
  // never sent to a javascript: or data: address, nor to another site (./claim-url.ts).
  const outcome: FlowResult =
    result.ok && !safeClaimUrl(result) ? { ok: false, code: "failed", status: 502, locale: result.locale } : result;

  if (isJson) {
    const headers: Record<string, string> = { ...NO_STORE, "Content-Type": "application/json" };
    if (!outcome.ok && outcome.retryAfterMs) headers["Retry-After"] = String(Math.ceil(outcome.retryAfterMs / 1000));
    return new Response(JSON.stringify(jsonBody(outcome)), { status: outcome.ok ? 200 : outcome.status, headers });
  }
  if (outcome.ok) return new Response(null, { status: 303, headers: { ...NO_STORE, Location: outcome.claimUrl } });
  return liquid(failurePage(outcome), { headers: NO_STORE });
}
