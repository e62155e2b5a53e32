// The storefront's POST {proxy path}/cart (/apps/workspace/cart unless the merchant changed it), without Remix:
// the route passes Shopify's proxy check and the Admin API client, the bench passes stubs for the service and the
// Admin API. The signature check comes first (a bad or
// missing one is Shopify's 400); from the body only the cart token, variant ids, quantities and locale are read.
// JSON in → JSON out (the block's script); a form → 303 to the claim URL, or a page with the message and a link
// back to the cart.
import type { PrismaClient } from "@prisma/client";
import type { ServiceDepsOverrides } from "../service/client.server";
import type { Budget } from "./budget";
import { formToRaw } from "./cart-input";
import { continueCart, type FlowResult } from "./flow.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import type { StorefrontGraphql } from "./market-prices.server";
import { failurePage, jsonBody, readBounded, safeClaimUrl } from "./response.server";
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
}

const NO_STORE = { "Cache-Control": "no-store" };

async function readInput(request: Request, isJson: boolean): Promise<unknown> {
  const text = await readBounded(request);
  if (text === null) return null;
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
      loadSettings: () => loadHandoffSettings(deps.prisma, shop),
      service: deps.service,
    },
    { shop, customerId, ip: (request.headers.get("x-forwarded-for") ?? "").split(",")[0].trim(), raw },
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
