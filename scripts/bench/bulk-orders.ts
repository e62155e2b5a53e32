// The launch's orders for the bulk backfill bench (bulk-backfill.ts) and its file server (bulk-files.ts), generated
// as they are read (never all in memory); sizes from the environment.
import { DEMO_PRODUCTS, type PastOrder } from "../../dev/demo-store";

export const CUSTOMERS = Number(process.env.BENCH_BULK_CUSTOMERS ?? 1000);
export const ORDERS = Number(process.env.BENCH_BULK_ORDERS ?? 50);
export const LINES = Number(process.env.BENCH_BULK_LINES ?? 50);
export const customerId = (c: number) => String(7_600_000_000 + c);

/** The launch's orders, generated as they are read (never all in memory). */
export function* launchOrders(now: number, customers = CUSTOMERS, orders = ORDERS): Generator<PastOrder> {
  for (let c = 0; c < customers; c++)
    for (let i = 0; i < orders; i++) {
      const n = c * orders + i;
      yield {
        id: String(5_900_000_000 + n),
        name: `#${100000 + n}`,
        customerId: customerId(c),
        createdAt: new Date(now - (50 - (i * 40) / orders) * 86_400_000).toISOString(),
        lines: Array.from({ length: LINES }, (_, j) => ({
          id: String(95_000_000_000 + n * 100 + j),
          product: DEMO_PRODUCTS[j % DEMO_PRODUCTS.length],
          quantity: 1 + (j % 3),
        })),
        fulfillment: null,
      };
    }
}
