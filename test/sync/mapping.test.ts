// The mappers against Shopify's REST webhook shapes (orders/create, fulfillments/create, after Shopify's sample
// payloads), parsed the way the webhook handler parses them (ids above 2^53 kept exact).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OrderRequestSchema, ShipmentRequestSchema } from "~/service/schemas";
import {
  contentHash,
  customerIdOf,
  idempotencyKey,
  idString,
  mapFulfillment,
  mapOrder,
  orderIdOf,
  type ShopifyOrder,
} from "~/sync/mapping.server";
import { parseShopifyJson } from "~/shopify/webhook.server";

// Parsed as the webhook handler parses them: 64-bit ids kept exact.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fixture = (name: string): any => parseShopifyJson(readFileSync(path.join(__dirname, "fixtures", name), "utf8"));

describe("order → OrderRequest", () => {
  it("maps Shopify's orders/create payload, leaving out lines removed by edits", () => {
    const order = fixture("orders-create.json");
    const mapped = mapOrder(order);
    expect(mapped).toEqual({
      ok: true,
      request: {
        external_order_id: "820982911946154508",
        ordered_at: "2026-11-20T16:15:47-05:00",
        currency: "USD",
        lines: [
          {
            external_line_id: "866550311766439020",
            title: "IPod Nano - 8GB",
            quantity: 1,
            external_product_id: "632910392",
            merchant_sku: "IPOD2008PINK",
          },
          {
            external_line_id: String(order.line_items[1].id),
            title: "IPod Nano - 8GB",
            quantity: 1,
            external_product_id: "632910392",
            merchant_sku: "IPOD2008PINK",
          },
        ],
      },
    });
    expect(OrderRequestSchema.safeParse((mapped as { request: unknown }).request).success).toBe(true);
    expect(customerIdOf(order)).toBe("115310627314723954");
    expect(orderIdOf("order", order)).toBe(String(order.id));
  });

  it("uses the current quantity after an edit, and the quantity when Shopify sends no current quantity", () => {
    const order = fixture("orders-create.json") as ShopifyOrder;
    order.line_items![0].current_quantity = 3;
    delete order.line_items![1].current_quantity;
    order.line_items![1].quantity = 4;
    const mapped = mapOrder(order);
    expect(mapped.ok && mapped.request.lines.map((l) => l.quantity)).toEqual([3, 4]);
  });

  it("keeps the zone of created_at and turns other date forms into RFC 3339", () => {
    expect(mapOrder({ ...fixture("orders-create.json"), created_at: "2026-11-20 16:15:47 UTC" })).toMatchObject({
      ok: true,
      request: { ordered_at: "2026-11-20T16:15:47.000Z" },
    });
  });

  it("skips an order with nothing left and fails one over 500 lines, in plain words", () => {
    const order = fixture("orders-create.json");
    const empty = { ...order, line_items: order.line_items.map((l: object) => ({ ...l, current_quantity: 0 })) };
    expect(mapOrder(empty)).toEqual({
      ok: false,
      state: "skipped",
      reasonCode: "no_lines",
      reason: "Nothing left to import: every line of this order was removed.",
      reasonDetails: { noun: "order" },
    });
    const huge = {
      ...order,
      line_items: Array.from({ length: 501 }, (_, i) => ({ ...order.line_items[0], id: i + 1 })),
    };
    expect(mapOrder(huge)).toMatchObject({
      ok: false,
      state: "failed",
      reasonCode: "too_many_lines",
      reason: expect.stringContaining("at most 500"),
      reasonDetails: { noun: "order", count: 501, max: 500 },
    });
    const exactly500 = {
      ...order,
      line_items: Array.from({ length: 500 }, (_, i) => ({ ...order.line_items[0], id: i + 1 })),
    };
    expect(mapOrder(exactly500).ok).toBe(true);
  });

  it("validates with the shared schema before sending", () => {
    expect(mapOrder({ ...fixture("orders-create.json"), currency: "EURO" })).toEqual({
      ok: false,
      state: "failed",
      reasonCode: "invalid_data",
      reason: "The order cannot be sent as it is: currency: must be exactly 3 characters.",
      // The facts the admin words in its language: the field's path is data, the same in every language.
      reasonDetails: { noun: "order", detail: "currency: must be exactly 3 characters", fields: ["currency"] },
    });
  });
});

describe("fulfillment → ShipmentRequest", () => {
  it("maps Shopify's fulfillments/create payload", () => {
    const fulfillment = fixture("fulfillments-create.json");
    const mapped = mapFulfillment(fulfillment);
    expect(mapped).toEqual({
      ok: true,
      request: {
        external_shipment_id: "123456",
        external_order_id: "820982911946154508",
        shipped_at: "2026-11-21T09:02:11-05:00",
        lines: [{ external_order_line_id: String(fulfillment.line_items[0].id), quantity: 1 }],
        carrier: "UPS",
        tracking_number: "1z827wk74630",
      },
    });
    expect(ShipmentRequestSchema.safeParse((mapped as { request: unknown }).request).success).toBe(true);
    // The fulfillment's order and line ids match the order's, as parsed from their own webhooks.
    const order = fixture("orders-create.json");
    expect(orderIdOf("shipment", fulfillment)).toBe(String(order.id));
    expect(String(fulfillment.line_items[0].id)).toBe(String(order.line_items[0].id));
  });

  it("leaves out carrier and tracking when Shopify has none, and skips cancelled or empty fulfillments", () => {
    const fulfillment = {
      ...fixture("fulfillments-create.json"),
      tracking_company: null,
      tracking_number: null,
      tracking_numbers: [],
    };
    const mapped = mapFulfillment(fulfillment);
    expect(mapped.ok && Object.keys(mapped.request)).toEqual([
      "external_shipment_id",
      "external_order_id",
      "shipped_at",
      "lines",
    ]);
    expect(mapFulfillment({ ...fulfillment, status: "cancelled" })).toMatchObject({ ok: false, state: "skipped" });
    expect(mapFulfillment({ ...fulfillment, line_items: [] })).toMatchObject({ ok: false, state: "skipped" });
  });
});

describe("ids and idempotency keys", () => {
  it("keeps 64-bit ids exact when parsing a webhook body", () => {
    expect(parseShopifyJson('{"id":820982911946154508,"n":1.5,"small":42}')).toEqual({
      id: "820982911946154508",
      n: 1.5,
      small: 42,
    });
    expect(JSON.parse('{"id":820982911946154508}').id).not.toBe(820982911946154508n.toString());
  });

  it("reads numeric, string and GraphQL ids alike", () => {
    expect(idString(123)).toBe("123");
    expect(idString("gid://shopify/Order/820982911946154508")).toBe("820982911946154508");
    expect(idString(null)).toBeUndefined();
  });

  it("derives one key per shop, resource and content", () => {
    const order = mapOrder(fixture("orders-create.json"));
    if (!order.ok) throw new Error("fixture should map");
    const hash = contentHash(order.request);
    const key = idempotencyKey("a.myshopify.com", "order", "1", hash);
    expect(key).toMatch(/^sync-o-[0-9a-f]{64}$/);
    expect(idempotencyKey("a.myshopify.com", "order", "1", hash)).toBe(key);
    expect(idempotencyKey("b.myshopify.com", "order", "1", hash)).not.toBe(key);
    expect(idempotencyKey("a.myshopify.com", "shipment", "1", hash)).not.toBe(key);
    const changed = { ...order.request, lines: order.request.lines.slice(1) };
    expect(idempotencyKey("a.myshopify.com", "order", "1", contentHash(changed))).not.toBe(key);
  });
});
