// Continue cart: from the storefront's cart (token, variant ids, quantities) to the service's claim URL.
// Idempotent by cart state: the same cart content while its handoff is still valid gives the same claim URL with
// nothing sent; a retry after a failure sends the same Idempotency-Key (derived from shop, cart and content, so
// even two simultaneous clicks share it); a changed cart is a new handoff; an expired one is never reused.
// In order: the budgets, what the storefront sent (checked: ./cart-input.ts), the settings, the cart's lines from Shopify
// (resolver.server.ts, market-prices.server.ts), the handoff request, the service, the record (records.server.ts).
import type { PrismaClient } from "@prisma/client";
import type { BucketPolicy } from "../lib/budget";
import type { Budgets } from "../lib/shared-budget.server";
import { handoffBudgetRefusals, handoffs } from "../lib/metrics.server";
import {
  createCartHandoff,
  serviceBaseUrl,
  type CartHandoffRequest,
  type Failure,
  type ServiceDepsOverrides,
  type ServiceSettings,
} from "../service/client.server";
import type { AdminGraphql } from "../shopify/admin-api.server";
import { marketPrices, withMarketPrices, type StorefrontGraphql } from "./market-prices.server";
import type { ShopperCode } from "./messages";
import { priorHandoffs, recordOutcome, recordRefusal, sha256, type RecordFacts } from "./records.server";
import { parseCartInput } from "./cart-input";
import { resolveCart, type ResolvedLine } from "./resolver.server";

// The budgets in front of a click: per cart, per shopper address and per shop, so hammering the button (from one
// address or from many) cannot create unbounded handoffs, Admin API calls or records. The buckets are the app's
// one token-bucket budget (app/lib/budget.ts), shared by every process on PostgreSQL (app/lib/shared-budget.server.ts)
// but for the address's, which each process keeps in memory.
export const CART_POLICY: BucketPolicy = { burst: 8, refillMs: 15_000 };
export const IP_POLICY: BucketPolicy = { burst: 60, refillMs: 1_000 };
/** Handoffs per minute for one shop, from all its shoppers together: a minute's worth at once, then steady. */
export const shopPolicy = (perMinute: number): BucketPolicy => ({ burst: perMinute, refillMs: 60_000 / perMinute });

// A shopper is waiting on the button: a few quick retries (same key and bytes), not the background minute.
export const INTERACTIVE_SERVICE_DEPS: ServiceDepsOverrides = {
  timeoutMs: 8_000,
  retry: { maxAttempts: 3, maxElapsedMs: 8_000 },
};

/** A handoff must stay valid this long after it is handed out again, or a new one is made. */
export const REUSE_MARGIN_MS = 60_000;

export interface HandoffSettings {
  enabled: boolean;
  expirySeconds: number;
  /** Null when the merchant has not configured the service. */
  service: ServiceSettings | null;
}

/** Handoffs per minute for one shop when the deployment sets nothing (HANDOFF_SHOP_PER_MINUTE). */
export const DEFAULT_SHOP_PER_MINUTE = 120;

/**
 * The service's rate budget, shared with the imports (app/service/rate-limiter.server.ts): a slot for this handoff now
 * with the fetch to send it through, or a refusal with the wait. Never queues: a shopper is waiting.
 */
export interface ServiceGate {
  open(
    settings: ServiceSettings,
    inner?: typeof fetch,
  ): { ok: true; fetch: typeof fetch } | { ok: false; retryAfterMs: number };
}

export interface FlowDeps {
  prisma: PrismaClient;
  graphql: AdminGraphql;
  /** The Storefront API, for the cart's prices in the shopper's market; without it, the Admin API's base prices. */
  storefront?: StorefrontGraphql;
  loadSettings: () => Promise<HandoffSettings>;
  budget: Budgets;
  /** Handoffs per minute for the shop, from all its shoppers together; default DEFAULT_SHOP_PER_MINUTE. */
  shopPerMinute?: number;
  /** The service's rate budget shared with the imports; absent (tests, the bench): nothing held back. */
  gate?: ServiceGate;
  now?: () => number;
  service?: ServiceDepsOverrides;
}

export interface FlowRequest {
  shop: string;
  customerId: string | null;
  /** The shopper's address as Shopify's app proxy saw it (app/lib/client-address.ts), only for the budget. */
  ip: string;
  /** The parsed JSON body, or the form as formToRaw gives it. */
  raw: unknown;
}

export type FlowResult =
  /** serviceOrigin: the active environment's base URL's origin, the only one a claim URL may be on (proxy-handler.server.ts). */
  | { ok: true; claimUrl: string; reused: boolean; locale: string; serviceOrigin: string }
  | { ok: false; code: ShopperCode; status: number; locale: string; items?: string[]; retryAfterMs?: number };

const PLAIN: Record<string, string> = {
  empty_cart: "The cart was empty.",
  too_many_lines: "The cart had more than 200 lines.",
  invalid_request: "The storefront sent a cart that could not be read.",
  settings_missing: "The service settings are missing: nothing was sent.",
  disabled: "The Continue cart button is turned off in the settings: nothing was sent.",
};

/** A click a budget refused (handoff_budget_refusals_total), nothing written. */
function refusedBy(budget: "door" | "cart" | "service", result: FlowResult): FlowResult {
  handoffBudgetRefusals.series(budget).inc();
  return result;
}

function failureCode(f: Failure): ShopperCode {
  if (f.kind === "invalid_signature") return "signature_rejected";
  if (f.kind === "rate_limited") return "rate_limited";
  if (f.kind === "server_error" || f.kind === "network_error" || f.kind === "timeout") return "service_unavailable";
  return "failed";
}

/** One Continue cart click, counted by its outcome (handoffs_total): created, reused, the shopper's code, or error. */
export async function continueCart(deps: FlowDeps, req: FlowRequest): Promise<FlowResult> {
  const result = await handOff(deps, req).catch((error: unknown) => {
    handoffs.series("error").inc();
    throw error;
  });
  handoffs.series(result.ok ? (result.reused ? "reused" : "created") : result.code).inc();
  return result;
}

async function handOff(deps: FlowDeps, req: FlowRequest): Promise<FlowResult> {
  const now = deps.now ?? Date.now;
  const { prisma } = deps;
  const { shop } = req;
  // The address's and the shop's budgets are taken together (all or none): an address refused on its own budget
  // does not spend the shop's, so one noisy address cannot lock a store's other shoppers out. Every refusal at
  // this door (and at the cart's budget and the service's below) writes nothing: a flood costs no rows.
  const doorBudget = await deps.budget.take([
    { key: `ip:${sha256(req.ip)}`, policy: IP_POLICY, local: true },
    { key: `shop:${shop}`, policy: shopPolicy(deps.shopPerMinute ?? DEFAULT_SHOP_PER_MINUTE) },
  ]);
  const parsed = parseCartInput(req.raw);
  const locale = parsed.ok ? parsed.input.locale : parsed.locale;
  if (!doorBudget.ok)
    return refusedBy("door", { ok: false, code: "busy", status: 429, locale, retryAfterMs: doorBudget.retryAfterMs });

  const facts: RecordFacts = { shop, customerId: req.customerId, cartTokenHash: "" };
  if (!parsed.ok) {
    await recordRefusal(prisma, facts, parsed.problem, PLAIN[parsed.problem]);
    return { ok: false, code: parsed.problem, status: parsed.problem === "too_many_lines" ? 413 : 400, locale };
  }
  const { input } = parsed;
  // The no-JavaScript form has no cart token (Liquid cannot read it): its cart is identified by its content.
  const requested = sha256(JSON.stringify(input.lines));
  facts.cartTokenHash = sha256(`${shop}|${input.token ?? `form:${requested}`}`);
  facts.lineCount = input.lines.length;
  const cartBudget = await deps.budget.take([{ key: `cart:${facts.cartTokenHash}`, policy: CART_POLICY }]);
  if (!cartBudget.ok)
    return refusedBy("cart", { ok: false, code: "busy", status: 429, locale, retryAfterMs: cartBudget.retryAfterMs });

  const settings = await deps.loadSettings();
  if (!settings.enabled || !settings.service) {
    const code = settings.enabled ? "settings_missing" : "disabled";
    await recordRefusal(prisma, facts, code, PLAIN[code]);
    return { ok: false, code, status: 503, locale };
  }

  const resolved = await resolveCart(deps.graphql, shop, input.lines);
  if (!resolved.ok) {
    // The shop's Admin API budget is spent for now: like every budget refusal, a 429 that writes nothing.
    if (resolved.problem === "busy")
      return { ok: false, code: "busy", status: 429, locale, retryAfterMs: resolved.retryAfterMs };
    if (resolved.problem === "unavailable") {
      await recordRefusal(prisma, facts, "unavailable", `No longer available: ${resolved.items.join(", ")}.`);
      return { ok: false, code: "unavailable", status: 409, locale, items: resolved.items };
    }
    await recordRefusal(
      prisma,
      facts,
      "admin_unreachable",
      `Shopify's Admin API could not be read (${resolved.detail}): nothing was sent.`,
    );
    return { ok: false, code: "failed", status: 502, locale };
  }

  // The shopper's market: Shopify's own prices for this cart (currency, automatic discounts), when it has them.
  const market = deps.storefront ? await marketPrices(deps.storefront, input.token, input.lines) : null;
  const priced = market?.ok ? { currency: market.currency, lines: withMarketPrices(resolved.lines, market) } : resolved;

  facts.currency = priced.currency;
  facts.lines = priced.lines;
  facts.contentHash = sha256(JSON.stringify([priced.currency, priced.lines]));
  const prior = await priorHandoffs(
    prisma,
    shop,
    facts.cartTokenHash,
    facts.contentHash,
    new Date(now() + REUSE_MARGIN_MS),
  );
  const serviceOrigin = new URL(serviceBaseUrl(settings.service)).origin;
  if (prior.reusableClaimUrl)
    return { ok: true, claimUrl: prior.reusableClaimUrl, reused: true, locale, serviceOrigin };

  // One key per (cart, content, expiry setting, generation): expired handoffs bump the generation.
  const { generation } = prior;
  facts.idempotencyKey = sha256(
    JSON.stringify([shop, facts.cartTokenHash, facts.contentHash, settings.expirySeconds, generation]),
  );
  facts.externalCartId = `cart-${facts.cartTokenHash.slice(0, 32)}`; // the token itself is the shopper's
  const request = buildHandoffRequest({
    shop,
    externalCartId: facts.externalCartId,
    currency: priced.currency,
    lines: priced.lines,
    expiresInSeconds: settings.expirySeconds,
  });
  // One write, after the answer: the key is derived from the cart, so a crash in between loses nothing a retry
  // would not find again (the service replays the same key), and the click costs one round trip less.
  // A slot in the service's rate budget, shared with the imports; none free now: refused at once, nothing written.
  const serviceDeps = deps.service ?? INTERACTIVE_SERVICE_DEPS;
  const slot = deps.gate?.open(settings.service, serviceDeps.fetch);
  if (slot && !slot.ok)
    return refusedBy("service", {
      ok: false,
      code: "rate_limited",
      status: 429,
      locale,
      retryAfterMs: slot.retryAfterMs,
    });
  const outcome = await createCartHandoff(settings.service, request, {
    idempotencyKey: facts.idempotencyKey,
    deps: slot ? { ...serviceDeps, fetch: slot.fetch } : serviceDeps,
  });
  if (!outcome.ok) {
    await recordOutcome(prisma, facts, {
      state: "failed",
      reasonCode: outcome.kind,
      reason: outcome.message,
      attempts: outcome.attempts,
    });
    return {
      ok: false,
      code: failureCode(outcome),
      status: outcome.kind === "rate_limited" ? 503 : 502,
      locale,
      retryAfterMs: outcome.retryAfterMs,
    };
  }
  await recordOutcome(prisma, facts, {
    state: "created",
    handoffId: outcome.data.handoff_id,
    claimUrl: outcome.data.claim_url,
    expiresAt: new Date(outcome.data.expires_at),
    attempts: outcome.attempts,
  });
  return { ok: true, claimUrl: outcome.data.claim_url, reused: false, locale, serviceOrigin };
}

// The CartHandoffRequest for a resolved cart. Pure: the same cart gives the same bytes, so a retry under the same
// Idempotency-Key is a replay at the service and not a conflict.
export interface BuildInput {
  shop: string;
  externalCartId: string;
  currency: string;
  lines: ResolvedLine[];
  expiresInSeconds: number;
}

export function buildHandoffRequest(input: BuildInput): CartHandoffRequest {
  return {
    external_cart_id: input.externalCartId,
    // The merchant's own reference: the shop and the id the service will show next to the cart.
    cart_reference: `${input.shop}/${input.externalCartId}`.slice(0, 255),
    lines: input.lines.map((l, i) => ({
      external_line_id: `${i + 1}-${l.variantId}`,
      title: l.title,
      quantity: l.quantity,
      external_product_id: l.productId,
      ...(l.sku ? { merchant_sku: l.sku } : {}),
      currency: input.currency,
      unit_price_minor: l.unitPriceMinor,
    })),
    return_url: `https://${input.shop}/cart`,
    expires_in_seconds: input.expiresInSeconds,
  };
}
