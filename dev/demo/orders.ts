// Realistic order traffic for the demo: for each new order of a demo customer, the webhooks Shopify would send
// (orders/create, sometimes orders/updated, fulfillments/create), with what real deliveries bring: duplicates
// (the same event delivered twice), updates, and deliveries out of order (a fulfillment or an update arriving
// before the order's create). Pure: it returns the deliveries; scripts/demo-orders.ts sends them.
import { randomUUID } from "node:crypto";
import { DEMO_CURRENCY, DEMO_PRODUCTS, type DemoCustomer } from "../demo-store";

export interface Delivery {
  topic: "orders/create" | "orders/updated" | "fulfillments/create";
  payload: Record<string, unknown>;
  eventId: string;
  webhookId: string;
  /** Why this delivery is there, for the summary. */
  note: "new" | "duplicate" | "update" | "out_of_order";
}

export interface GeneratedOrders {
  orderIds: string[];
  fulfillmentIds: string[];
  deliveries: Delivery[];
}

const iso = (ms: number) => new Date(ms).toISOString();

function order(id: number, number: number, customer: DemoCustomer, createdMs: number, pick: number) {
  const lines = DEMO_PRODUCTS.filter((_, i) => (pick >> i) & 1).slice(0, 3);
  if (lines.length === 0) lines.push(DEMO_PRODUCTS[pick % DEMO_PRODUCTS.length]);
  const line_items = lines.map((product, i) => {
    const lineId = id * 10 + i;
    const quantity = 1 + ((pick + i) % 3);
    return {
      id: lineId,
      admin_graphql_api_id: `gid://shopify/LineItem/${lineId}`,
      title: product.title,
      name: product.title,
      quantity,
      current_quantity: quantity,
      fulfillable_quantity: quantity,
      sku: product.sku,
      product_id: Number(product.id),
      variant_id: Number(product.variantId),
      price: product.price,
    };
  });
  const total = line_items.reduce((sum, l) => sum + Number(l.price) * l.quantity, 0);
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#D${number}`,
    created_at: iso(createdMs),
    updated_at: iso(createdMs + 2_000),
    currency: DEMO_CURRENCY,
    presentment_currency: DEMO_CURRENCY,
    financial_status: "paid",
    fulfillment_status: null,
    total_price: total.toFixed(2),
    customer: {
      id: Number(customer.id),
      email: customer.email,
      first_name: customer.firstName,
      last_name: customer.lastName,
    },
    line_items,
    refunds: [],
  };
}

export function generateOrders(count: number, customers: DemoCustomer[], now = Date.now()): GeneratedOrders {
  const deliveries: Delivery[] = [];
  const orderIds: string[] = [];
  const fulfillmentIds: string[] = [];
  const base = now * 100; // unique per run, below 2^53
  const deliver = (topic: Delivery["topic"], payload: Record<string, unknown>, note: Delivery["note"]): Delivery => ({
    topic,
    payload,
    note,
    eventId: randomUUID(),
    webhookId: randomUUID(),
  });
  for (let i = 0; i < count; i++) {
    const customer = customers[i % customers.length];
    const created = now - (count - i) * 60_000;
    const created0 = order(base + i * 2, (now % 100_000) + i, customer, created, 1 + ((i * 7) % 31));
    let latest = created0;
    const steps: Delivery[] = [deliver("orders/create", created0, "new")];
    if (i % 5 === 1) steps.push({ ...steps[0], note: "duplicate" }); // same event id: Shopify retried it
    let update: Delivery | null = null;
    if (i % 4 === 2 || i % 7 === 4) {
      const items = created0.line_items.map((l, j) =>
        j === 0
          ? { ...l, quantity: l.quantity + 1, current_quantity: l.quantity + 1, fulfillable_quantity: l.quantity + 1 }
          : l,
      );
      latest = { ...created0, line_items: items, updated_at: iso(created + 30_000) };
      update = deliver("orders/updated", latest, "update");
      // Sometimes the update overtakes the create on the way.
      if (i % 7 === 4) steps.unshift({ ...update, note: "out_of_order" });
      else steps.push(update);
    }
    const fulfillmentId = base + i * 2 + 1;
    const fulfillment = {
      id: fulfillmentId,
      admin_graphql_api_id: `gid://shopify/Fulfillment/${fulfillmentId}`,
      order_id: latest.id,
      status: "success",
      created_at: iso(created + 45_000),
      updated_at: iso(created + 45_000),
      service: "manual",
      tracking_company: i % 2 ? "UPS" : "DHL",
      tracking_number: `DEMO${String(fulfillmentId).slice(-8)}`,
      tracking_numbers: [`DEMO${String(fulfillmentId).slice(-8)}`],
      line_items: latest.line_items.map((l) => ({ id: l.id, quantity: l.quantity, title: l.title, sku: l.sku })),
    };
    const shipped = deliver("fulfillments/create", fulfillment, "new");
    // Sometimes the fulfillment arrives before its order.
    if (i % 6 === 3) steps.unshift({ ...shipped, note: "out_of_order" });
    else steps.push(shipped);
    deliveries.push(...steps);
    orderIds.push(String(created0.id));
    fulfillmentIds.push(String(fulfillmentId));
  }
  return { orderIds, fulfillmentIds, deliveries };
}
