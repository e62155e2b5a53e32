// OrderRequest and OrderLine (docs/service.md, "Endpoints"). No other properties allowed at any level.
import { z } from "zod";
import { dateTime, exactLength, positiveQuantity } from "./formats";

export const OrderLineSchema = z.strictObject({
  external_line_id: z.string(),
  title: z.string(),
  quantity: positiveQuantity(),
  external_product_id: z.string().optional(),
  merchant_sku: z.string().optional(),
});

export const OrderRequestSchema = z.strictObject({
  external_order_id: z.string(),
  ordered_at: dateTime(),
  lines: z.array(OrderLineSchema).min(1).max(500),
  currency: exactLength(3).optional(),
});

export type OrderLine = z.infer<typeof OrderLineSchema>;
export type OrderRequest = z.infer<typeof OrderRequestSchema>;
