// The demo's customer account pages (./server.ts) for the demo customers, started beside the other stand-ins.
import path from "node:path";
import {
  customerName,
  DEMO_CUSTOMERS,
  DEMO_SHOP,
  DEMO_SHOP_NAME,
  orderHistory,
  type DemoCustomer,
} from "../demo-store";
import { createCustomerAccountPages } from "./server";

export async function startCustomerAccountPages(options: {
  host: string;
  port: number;
  /** Where the app listens: the extensions call it directly, cross-origin. */
  appUrl: string;
  apiKey: string;
  apiSecret: string;
  /** Signed in until another demo customer signs in at <account>/login. */
  customer: DemoCustomer;
  dataDir: string;
}): Promise<{ close(): Promise<void> }> {
  const customers = [options.customer, ...DEMO_CUSTOMERS.filter((c) => c.id !== options.customer.id)];
  // Each customer's most recent past order with a shipment: the backfill imports it when they connect.
  const orders = customers.flatMap((c) => {
    const order = orderHistory()
      .filter((o) => o.customerId === c.id && o.fulfillment)
      .at(-1);
    return order ? [{ id: order.id, name: order.name, customerId: c.id }] : [];
  });
  if (!orders.some((o) => o.customerId === options.customer.id))
    throw new Error("the demo customer has no past order with a shipment");
  const { server } = await createCustomerAccountPages({
    appUrl: options.appUrl,
    shop: DEMO_SHOP,
    shopName: DEMO_SHOP_NAME,
    apiKey: options.apiKey,
    apiSecret: options.apiSecret,
    customers: customers.map((c) => ({ id: c.id, name: customerName(c), email: c.email })),
    orders,
    outDir: path.join(options.dataDir, "extensions"),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  return { close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())) };
}
