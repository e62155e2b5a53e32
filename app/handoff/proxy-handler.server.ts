// The storefront's POST {proxy path}/cart (/apps/workspace/cart unless the merchant changed it), without Remix:
// the route passes Shopify's proxy check and the Admin API client, the bench passes stubs for the service and the
// Admin API. The signature check comes first (a bad or missing one is Shopify's 400); from the body only the cart
// token, variant ids, quantities and locale are read (bounded). JSON in → JSON out (the block's script); a form →
// 303 to the claim URL, or a small Liquid page (./storefront-answer.ts). The claim URL is followed only when it is
// on the configured service (./claim-url.server.ts).
import type { PrismaClient } from "@prisma/client";
import { env } from "../env.server";
import type { Budgets } from "../lib/shared-budget.server";
import { readBody, readJsonObject } from "../lib/body-limit.server";
import { clientAddress } from "../lib/client-address";
import type { ServiceDepsOverrides } from "../service/client.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { continueCart, type FlowResult, type ServiceGate } from "./flow.server";
import type { StorefrontGraphql } from "./market-prices.server";
import { safeClaimUrl } from "./claim-url.server";
import { failurePage, jsonBody } from "./storefront-answer";
import { loadHandoffSettings } from "./settings.server";

export interface ProxyHandlerDeps {
  prisma: PrismaClient;
  budget: Budgets;
  /**
   * Shopify's proxy check (app/shopify/app-proxy.server.ts): throws Shopify's 400 response for a bad or missing
   * signature; the shop and the logged-in customer are the ones it verified.
   */
  verify: (
    request: Request,
  ) => Promise<{ liquid: (body: string, init?: ResponseInit) => Response; shop: string; customerId: string | null }>;
  graphql: AdminGraphql;
  /** The Storefront API for the cart's market prices (docs/continue-cart-prices.md); absent: base prices. */
  storefrontFor?: (shop: string) => StorefrontGraphql;
  service?: ServiceDepsOverrides;
  /** The service's rate budget, shared with the imports (app/service/rate-limiter.server.ts, handoffGate). */
  gate?: ServiceGate;
  /** The socket's peer address (server/request-handler.ts puts it in the load context). */
  peer?: string;
  /** Our own proxies in front of the app; default TRUSTED_PROXY_HOPS. */
  trustedHops?: number;
  /** Handoffs per minute for one shop; default HANDOFF_SHOP_PER_MINUTE. */
  shopPerMinute?: number;
}

const NO_STORE = { "Cache-Control": "no-store" };

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
    { shop, customerId, ip: clientAddress(request, deps.peer, { appProxy: true, trustedHops: deps.trustedHops }), raw },
  );
  // Only a claim URL on the configured service's origin (https, or http on loopback) is followed: the browser is
  // never sent to a javascript: or data: address, nor to another site (allowedClaimUrl).
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

// What the storefront sends, as JSON or as the no-JavaScript form: 200 lines of "variantId:quantity" with a token
// fit in a few KB, so a form's limit (app/lib/body-limit.server.ts). Larger or unreadable: no input.
async function readInput(request: Request, isJson: boolean): Promise<unknown> {
  if (isJson) {
    const body = await readJsonObject(request, "form");
    return body.ok ? body.value : null;
  }
  const body = await readBody(request, "form");
  return body.ok ? formToRaw(new URLSearchParams(new TextDecoder().decode(body.bytes))) : null;
}

/** The no-JavaScript form: `token`, `locale` and repeated `line` = "variantId:quantity". */
export function formToRaw(form: Pick<URLSearchParams, "get" | "getAll">): unknown {
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  const lines = form.getAll("line").map((v) => {
    const m = typeof v === "string" ? /^(\d{1,20}):(\d{1,6})$/.exec(v) : null;
    return m ? { variant_id: m[1], quantity: Number(m[2]) } : { invalid: true };
  });
  return { token: text("token"), locale: text("locale"), lines };
}
