// The demo's customer account pages (./server.ts) for the demo customer, started beside the other stand-ins.
import path from "node:path";
import { customerName, DEMO_SHOP, DEMO_SHOP_NAME, orderHistory, type DemoCustomer } from "../demo-store";
import { createCustomerAccountPages } from "./server";

export async function startCustomerAccountPages(options: {
  host: string;
  port: number;
  /** Where the app listens: the blocks call it directly, cross-origin. */
  appUrl: string;
  apiKey: string;
  apiSecret: string;
  customer: DemoCustomer;
  dataDir: string;
}): Promise<{ close(): Promise<void> }> {
  // Their most recent past order with a shipment: the backfill imports it when they connect.
  const order = orderHistory()
    .filter((o) => o.customerId === options.customer.id && o.fulfillment)
    .at(-1);
  if (!order) throw new Error("the demo customer has no past order with a shipment");
  const { server } = await createCustomerAccountPages({
    appUrl: options.appUrl,
    shop: DEMO_SHOP,
    shopName: DEMO_SHOP_NAME,
    apiKey: options.apiKey,
    apiSecret: options.apiSecret,
    customer: { id: options.customer.id, name: customerName(options.customer), email: options.customer.email },
    order: { id: order.id, name: order.name },
    outDir: path.join(options.dataDir, "extensions"),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  return { close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())) };
}
