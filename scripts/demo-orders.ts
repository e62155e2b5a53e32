// `npm run demo:orders -- --count N`: N new orders of the connected demo customer, sent to the running demo as
// Shopify's signed webhooks (with duplicates, updates and out-of-order deliveries; dev/demo/orders.ts).
// Where to send them comes from the demo's ready file in the data dir, or from --app-url/--secret/--shop.
import { readFileSync } from "node:fs";
import path from "node:path";
import { sendWebhook } from "../dev/shopify/webhooks";
import { generateOrders } from "../dev/demo/orders";
import { DEMO_CUSTOMERS, DEMO_SHOP } from "../dev/demo-store";

const USAGE = `usage: npm run demo:orders -- [--count N] [--data-dir DIR] [--customer ID] [--app-url URL --secret S [--shop S]]`;

function parse(argv: string[]) {
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !["count", "data-dir", "customer", "app-url", "secret", "shop"].includes(m[1]))
      throw new Error(`unknown argument ${argv[i]}\n${USAGE}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${m[1]} needs a value\n${USAGE}`);
    flags[m[1]] = value;
  }
  const count = Number(flags.count ?? 10);
  if (!Number.isInteger(count) || count < 1 || count > 10_000) throw new Error(`--count must be 1 to 10000\n${USAGE}`);
  let ready: { app_url?: string; api_secret?: string; shop?: string; customer_id?: string } = {};
  if (!flags["app-url"] || !flags.secret) {
    const file = path.resolve(flags["data-dir"] ?? "data/demo", "demo-ready.json");
    try {
      ready = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      throw new Error(`no running demo found (${file}): start \`npm run demo\` first, or pass --app-url and --secret`);
    }
  }
  const customerId = flags.customer ?? ready.customer_id ?? DEMO_CUSTOMERS[0].id;
  const customer = DEMO_CUSTOMERS.find((c) => c.id === customerId) ?? { ...DEMO_CUSTOMERS[0], id: customerId };
  return {
    count,
    appUrl: flags["app-url"] ?? ready.app_url!,
    secret: flags.secret ?? ready.api_secret!,
    shop: flags.shop ?? ready.shop ?? DEMO_SHOP,
    customer,
  };
}

async function main() {
  const options = parse(process.argv.slice(2));
  const { deliveries, orderIds, fulfillmentIds } = generateOrders(options.count, [options.customer]);
  const tally: Record<string, number> = {};
  for (const d of deliveries) {
    const response = await sendWebhook(options.appUrl, d.topic, d.payload, {
      shop: options.shop,
      secret: options.secret,
      eventId: d.eventId,
      webhookId: d.webhookId,
    });
    await response.body?.cancel();
    if (response.status !== 200) throw new Error(`${d.topic} answered HTTP ${response.status}`);
    tally[d.note] = (tally[d.note] ?? 0) + 1;
  }
  console.log(
    `sent ${deliveries.length} webhooks for ${orderIds.length} orders of customer ${options.customer.id} to ${options.appUrl} ` +
      `(${tally.duplicate ?? 0} duplicates, ${tally.update ?? 0} updates, ${tally.out_of_order ?? 0} out of order)`,
  );
  console.log(`demo orders ${JSON.stringify({ order_ids: orderIds, fulfillment_ids: fulfillmentIds })}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
