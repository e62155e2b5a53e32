// The CartHandoffRequest for a resolved cart. Pure: the same cart gives the same bytes, so a retry under the same
// Idempotency-Key is a replay at the service and not a conflict.
import type { CartHandoffRequest } from "../service/client.server";
import type { ResolvedLine } from "./resolver.server";

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
