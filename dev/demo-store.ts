// The demo store's data: one shop, its customers, a small catalog and each customer's order history. The
// storefront stand-in, the Admin API handlers and the demo's order generator all read it, so a product added to
// the cart, priced by the Admin API and ordered by a webhook is the same product everywhere.
export const DEMO_SHOP = "demo-shop.myshopify.com";
export const DEMO_SHOP_NAME = "Demo Outfitters";
export const DEMO_CURRENCY = "EUR";

export interface DemoProduct {
  id: string;
  variantId: string;
  handle: string;
  title: string;
  sku: string;
  /** Decimal string in DEMO_CURRENCY, as the Admin API gives prices. */
  price: string;
  description: string;
  /** A colour for the product's placeholder picture (the demo has no images). */
  color: string;
}

export const DEMO_PRODUCTS: DemoProduct[] = [
  {
    id: "8100000001",
    variantId: "4600000001",
    handle: "blue-mug",
    title: "Blue mug",
    sku: "MUG-BLUE",
    price: "12.50",
    description: "Stoneware, 350 ml, dishwasher safe.",
    color: "#3b6fb6",
  },
  {
    id: "8100000002",
    variantId: "4600000002",
    handle: "canvas-tote",
    title: "Canvas tote",
    sku: "TOTE-NAT",
    price: "18.00",
    description: "Heavy cotton canvas with long handles.",
    color: "#c8b68e",
  },
  {
    id: "8100000003",
    variantId: "4600000003",
    handle: "field-notebook",
    title: "Field notebook",
    sku: "NOTE-A5",
    price: "9.90",
    description: "A5, 96 dotted pages, lies flat.",
    color: "#5a7d5a",
  },
  {
    id: "8100000004",
    variantId: "4600000004",
    handle: "wool-beanie",
    title: "Wool beanie",
    sku: "BEANIE-RED",
    price: "24.00",
    description: "Merino wool, one size.",
    color: "#b5443b",
  },
  {
    id: "8100000005",
    variantId: "4600000005",
    handle: "enamel-pin",
    title: "Enamel pin",
    sku: "PIN-STAR",
    price: "6.50",
    description: "Hard enamel, gold plated.",
    color: "#d9a520",
  },
];

export interface DemoCustomer {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
}

/** The first customer is the one the demo connects to a workspace at start. */
export const DEMO_CUSTOMERS: DemoCustomer[] = [
  { id: "7300000001", firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" },
  { id: "7300000002", firstName: "Grace", lastName: "Hopper", email: "grace@example.com" },
  // A wholesale buyer: her history is the backfill's heavy case (see orderHistory).
  { id: "7300000003", firstName: "Katherine", lastName: "Johnson", email: "katherine@example.com" },
];

/** The customer whose history is 60 orders of 300 lines each: connecting her shows a backfill paced by Shopify's query cost limit. */
export const WHOLESALE_CUSTOMER_ID = "7300000003";

export const customerName = (c: DemoCustomer) => `${c.firstName} ${c.lastName}`;
export const findProduct = (predicate: (p: DemoProduct) => boolean) => DEMO_PRODUCTS.find(predicate);

export interface PastOrder {
  id: string;
  name: string;
  customerId: string;
  createdAt: string;
  lines: { id: string; product: DemoProduct; quantity: number }[];
  fulfillment: { id: string; createdAt: string; company: string; number: string } | null;
}

/**
 * Each customer's orders of the last weeks (what the backfill fetches when they connect): three orders, two of
 * them shipped; the wholesale customer has 60 orders of 300 lines, all shipped. Ids are fixed, dates are relative
 * to `now` rounded to the day, so a restart finds the same orders.
 */
export function orderHistory(now = new Date()): PastOrder[] {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const orders: PastOrder[] = [];
  DEMO_CUSTOMERS.forEach((customer, c) => {
    if (customer.id === WHOLESALE_CUSTOMER_ID) {
      orders.push(...wholesaleHistory(customer, day));
      return;
    }
    for (let i = 0; i < 3; i++) {
      const n = c * 10 + i + 1;
      const created = day - (40 - i * 15) * 86_400_000 + 10 * 3_600_000;
      const lines = [0, 1].map((j) => ({
        id: String(9_200_000_000 + n * 10 + j),
        product: DEMO_PRODUCTS[(n + j * 2) % DEMO_PRODUCTS.length],
        quantity: 1 + ((n + j) % 2),
      }));
      orders.push({
        id: String(5_500_000_000 + n),
        name: `#${1000 + n}`,
        customerId: customer.id,
        createdAt: new Date(created).toISOString(),
        lines,
        fulfillment:
          i < 2
            ? {
                id: String(6_600_000_000 + n),
                createdAt: new Date(created + 2 * 86_400_000).toISOString(),
                company: "DHL",
                number: `JD01460000${n}`,
              }
            : null,
      });
    }
  });
  return orders;
}

/** 60 orders of 300 lines over the last 50 days, each shipped whole a day later. */
function wholesaleHistory(customer: DemoCustomer, day: number): PastOrder[] {
  return Array.from({ length: 60 }, (_, i) => {
    const created = day - (50 - Math.floor(i * 0.8)) * 86_400_000 + (8 + (i % 8)) * 3_600_000;
    return {
      id: String(5_510_000_000 + i),
      name: `#${2000 + i}`,
      customerId: customer.id,
      createdAt: new Date(created).toISOString(),
      lines: Array.from({ length: 300 }, (_, j) => ({
        id: String(9_210_000_000 + i * 1000 + j),
        product: DEMO_PRODUCTS[(i + j) % DEMO_PRODUCTS.length],
        quantity: 1 + (j % 3),
      })),
      fulfillment: {
        id: String(6_610_000_000 + i),
        createdAt: new Date(created + 86_400_000).toISOString(),
        company: "UPS",
        number: `1Z999AA1${String(i).padStart(8, "0")}`,
      },
    };
  });
}
