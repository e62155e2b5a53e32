// The storefront side of a flow result: the bounded body read, JSON for the script, and for the no-JavaScript
// form a 303 to the claim URL or a small Liquid page with the message and a link back to the cart.
import { escapeForLiquid } from "../connections/connect-page.server";
import { BODY_LIMITS, readBody } from "../lib/body-limit.server";
import type { FlowResult } from "./flow.server";
import { backToCartLabel, shopperMessage } from "./messages";

/** 200 lines of "variantId:quantity" with a token fit in a few KB; anything far larger is not a cart (a form's limit). */
export const MAX_BODY_BYTES = BODY_LIMITS.form;

/** Reads at most `limit` bytes (lib/body-limit.server.ts); null when the body is larger or unreadable. */
export async function readBounded(request: Request, limit = MAX_BODY_BYTES): Promise<string | null> {
  const body = await readBody(request, limit);
  return body.ok ? new TextDecoder().decode(body.bytes) : null;
}

export function safeClaimUrl(url: string): string | null {
  return URL.canParse(url) && /^https?:$/.test(new URL(url).protocol) ? url : null;
}

export function jsonBody(result: FlowResult) {
  if (result.ok) return { ok: true as const, claim_url: result.claimUrl };
  return { ok: false as const, code: result.code, message: shopperMessage(result.code, result.locale, result.items) };
}

/** The no-JavaScript failure page (Liquid, framed by the theme). Everything dynamic is escaped. */
export function failurePage(result: Extract<FlowResult, { ok: false }>): string {
  const message = escapeForLiquid(shopperMessage(result.code, result.locale, result.items));
  return `<div class="page-width continue-cart-result" data-code="${escapeForLiquid(result.code)}">
<p role="alert">${message}</p>
<p><a href="/cart">${escapeForLiquid(backToCartLabel(result.locale))}</a></p>
</div>`;
}
