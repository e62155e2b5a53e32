// ShipmentRequest and ShipmentLine (docs/service.md, "Endpoints"). No other properties allowed at any level.
import { z } from "zod";
import { dateTime, positiveQuantity } from "./formats";

export const ShipmentLineSchema = z.strictObject({
  external_order_line_id: z.string(),
  quantity: positiveQuantity(),
});

export const ShipmentRequestSchema = z.strictObject({
  external_shipment_id: z.string(),
  external_order_id: z.string(),
  shipped_at: dateTime(),
  lines: z.array(ShipmentLineSchema).min(1).max(500),
  carrier: z.string().optional(),
  tracking_number: z.string().optional(),
});

export type ShipmentLine = z.infer<typeof ShipmentLineSchema>;
export type ShipmentRequest = z.infer<typeof ShipmentRequestSchema>;
