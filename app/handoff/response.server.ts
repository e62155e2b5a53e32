// The storefront side of a flow result: JSON for the script, and for the no-JavaScript form a 303 to the claim URL
// or a small Liquid page with the message and a link back to the cart.
import { escapeForLiquid } from "../connections/connect-page.server";
import { policyFromEnv, type AddressPolicy } from "../service/address-policy.server";
import { allowedClaimUrl, serviceOriginOf } from "./claim-url";
import type { FlowResult } from "./flow.server";
import { backToCartLabel, shopperMessage } from "./messages";

/**
 * A successful result's claim URL when the shopper may be sent there (claim-url.ts: https on the configured
 * service's origin; http only to a loopback service the address policy allows, i.e. the demo and tests); null
 * otherwise: never a javascript: or data: address, nor another site.
 */
export function safeClaimUrl(result: Extract<FlowResult, { ok: true }>, policy: AddressPolicy = policyFromEnv()): string | null {
  return allowedClaimUrl(result.claimUrl, serviceOriginOf(result.serviceOrigin), { allowLoopbackHttp: policy.allowLoopback });
}

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
