// Data minimisation at intake: the stored form of a webhook keeps what the mapping needs and nothing of the
// shopper's contact data.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { customerDisplayName, minimiseFulfillment, minimiseOrder } from "~/sync/minimise.server";
import { mapFulfillment, mapOrder, type ShopifyFulfillment, type ShopifyOrder } from "~/sync/mapping.server";
import { parseShopifyJson } from "~/shopify/webhook.server";
import { fulfillmentWithContactData, newShopper, orderWithContactData } from "../privacy/support";

const fixture = (name: string) =>
  parseShopifyJson(readFileSync(path.resolve(__dirname, "../sync/fixtures", name), "utf8"));

describe("minimised payloads", () => {
  it("map to exactly the same service request as the full payload", () => {
    const shopper = newShopper();
    const orders = [
      fixture("orders-create.json"),
      orderWithContactData(shopper),
      orderWithContactData(shopper, { customer: null }),
    ];
    for (const order of orders) {
      expect(mapOrder(minimiseOrder(order) as unknown as ShopifyOrder)).toEqual(mapOrder(order as ShopifyOrder));
    }
    const fulfillments = [
      fixture("fulfillments-create.json"),
      fulfillmentWithContactData(shopper, orderWithContactData(shopper)),
    ];
    for (const fulfillment of fulfillments) {
      expect(mapFulfillment(minimiseFulfillment(fulfillment) as unknown as ShopifyFulfillment)).toEqual(
        mapFulfillment(fulfillment as ShopifyFulfillment),
      );
    }
  });

  it("keep no email, phone, name, address, note, IP or line item property", () => {
    const shopper = newShopper();
    const order = orderWithContactData(shopper);
    const stored = JSON.stringify([
      minimiseOrder(order),
      minimiseFulfillment(fulfillmentWithContactData(shopper, order)),
    ]);
    for (const value of [
      shopper.email,
      shopper.phone,
      shopper.lastName,
      shopper.street,
      shopper.ip,
      "Arlington",
      "22201",
      "Engraving",
      "VIP",
    ]) {
      expect(stored).not.toContain(value);
    }
    expect(minimiseOrder(order)).toMatchObject({
      id: order.id,
      name: order.name,
      customer: { id: shopper.id, display_name: "Grace H." },
    });
  });

  it("drop fields of an unexpected type instead of storing them", () => {
    const stored = minimiseOrder({
      id: { $gt: 1 },
      name: ["#1"],
      created_at: 5,
      line_items: "all",
      customer: { id: [1], first_name: {} },
    });
    expect(stored).toEqual({ customer: null });
  });

  it("show a customer as first name and last initial", () => {
    expect(customerDisplayName({ first_name: " Ada ", last_name: "lovelace" })).toBe("Ada L.");
    expect(customerDisplayName({ first_name: "Ada" })).toBe("Ada");
    expect(customerDisplayName({ last_name: "Lovelace" })).toBeNull();
    expect(customerDisplayName(null)).toBeNull();
  });
});
