// CartHandoffRequest and CartLine (docs/service.md, "Endpoints"). No other properties allowed at any level.
import { z } from "zod";
import { positiveQuantity, uri } from "./formats";

export const CartLineSchema = z.strictObject({
  external_line_id: z.string(),
  title: z.string(),
  quantity: positiveQuantity(),
  external_product_id: z.string().optional(),
  merchant_sku: z.string().optional(),
  currency: z.string().optional(),
  unit_price_minor: z.int().optional(),
});

export const CartHandoffRequestSchema = z.strictObject({
  external_cart_id: z.string(),
  cart_reference: z.string(),
  lines: z.array(CartLineSchema).min(1).max(200),
  return_url: uri().optional(),
  expires_in_seconds: z.int().min(60).max(604800).optional(),
});

export type CartLine = z.infer<typeof CartLineSchema>;
export type CartHandoffRequest = z.infer<typeof CartHandoffRequestSchema>;
