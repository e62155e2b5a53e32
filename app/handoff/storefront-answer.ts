// What Continue cart answers the storefront: JSON for the block's script, or for the no-JavaScript form a small
// Liquid page (framed by the store's theme) with the message and a link back to the cart. Everything dynamic is
// escaped; the words are the shopper's language's (./messages.ts).
import { escapeForLiquid } from "../connections/connect-page.server";
import type { FlowResult } from "./flow.server";
import { backToCartLabel, shopperMessage } from "./messages";

/** JSON for the block's script; `service_origin` lets it check the claim URL once more before it navigates. */
export function jsonBody(result: FlowResult) {
  if (result.ok) return { ok: true as const, claim_url: result.claimUrl, service_origin: result.serviceOrigin };
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
