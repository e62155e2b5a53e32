// Bench rows for Continue cart: the time the app adds to one handoff, without the service and the Admin API
// (both answered at once by stubs), against a baseline measured in the same run: the same signed storefront
// request through Shopify's app-proxy signature check alone. The handoff row runs the real proxy handler: the
// signature check, input validation, budget, settings read and decryption, records (two writes), request build
// and signing. Each sample is a new cart (new token, own address), so every one makes a new handoff.
import { randomBytes, randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { signProxyQuery } from "../../dev/shopify/app-proxy";
import { appEnv, throwawayDatabase, type Bench } from "./common";
import { percentile, timeSamples } from "./load";

export interface BenchRow {
  name: string;
  samples: number[];
}

export interface HandoffBenchInput {
  prisma: PrismaClient;
  shop: string;
  apiSecret: string;
  measure: (label: string, run: () => Promise<unknown>) => Promise<BenchRow>;
}

export const HANDOFF_TARGET_P95_MS = 15;
export const HANDOFF_ROW = "continue cart: app's own time (stubs)";

export async function benchHandoff({ prisma, shop, apiSecret, measure }: HandoffBenchInput): Promise<BenchRow[]> {
  const { authenticate } = await import("../../app/shopify.server");
  const { verifyAppProxy } = await import("../../app/shopify/app-proxy.server");
  const { memoryBudgets } = await import("../../app/lib/shared-budget.server");
  const { handleContinueCart } = await import("../../app/handoff/proxy-handler.server");
  const { CART_VARIANTS_QUERY } = await import("../../app/handoff/resolver.server");
  const { saveSettings } = await import("../../app/connections/settings-store.server");

  const saved = await saveSettings(prisma, shop, {
    environment: "sandbox",
    baseUrl: "https://service.bench.example",
    sandboxBaseUrl: "https://sandbox.bench.example",
    authUrl: "https://auth.bench.example",
    clientId: "bench-client",
    clientSecret: "bench-client-secret",
    signingSecret: "bench-signing-secret",
  });
  if (!saved.ok) throw new Error("bench settings refused");

  const lines = [
    { variant_id: "41000000001", quantity: 2 },
    { variant_id: "41000000002", quantity: 1 },
  ];
  const nodes = lines.map((l, i) => ({
    id: `gid://shopify/ProductVariant/${l.variant_id}`,
    title: "Default Title",
    sku: `SKU-${i}`,
    price: "12.50",
    availableForSale: true,
    product: {
      id: `gid://shopify/Product/${8_000_000_000 + i}`,
      title: `Product ${i}`,
      status: "ACTIVE",
      onlineStoreUrl: `https://bench.example.com/products/p-${i}`,
    },
  }));
  const graphql = async (_shop: string, query: string) => {
    if (query !== CART_VARIANTS_QUERY) throw new Error("unexpected query");
    return { data: { shop: { currencyCode: "EUR" }, nodes } };
  };
  const service = {
    fetch: async () => {
      const id = randomUUID();
      const body = {
        handoff_id: id,
        claim_url: `https://sandbox.bench.example/claim/${id}`,
        expires_at: new Date(Date.now() + 1_800_000).toISOString(),
      };
      return new Response(JSON.stringify(body), { status: 201, headers: { "content-type": "application/json" } });
    },
  };
  // Every sample is a new shopper of one shop: the shop-wide cap (HANDOFF_SHOP_PER_MINUTE) would stop the run.
  const deps = {
    prisma,
    budget: memoryBudgets(),
    shopPerMinute: 1_000_000,
    graphql,
    service,
    verify: (request: Request) => verifyAppProxy(request, authenticate.public.appProxy),
  };

  const request = () => {
    const query = signProxyQuery(
      {
        shop,
        logged_in_customer_id: "",
        path_prefix: "/apps/workspace",
        timestamp: String(Math.floor(Date.now() / 1000)),
      },
      apiSecret,
    );
    return new Request(`https://bench.example.com/proxy/cart?${query}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "x-forwarded-for": `10.${randomBytes(3).join(".")}`,
      },
      body: JSON.stringify({ token: `bench-${randomUUID()}`, locale: "en", lines }),
    });
  };

  const baseline = await measure("baseline: app proxy signature check alone", () =>
    authenticate.public.appProxy(request()),
  );
  const handoff = await measure(HANDOFF_ROW, async () => {
    const res = await handleContinueCart(request(), deps);
    if (res.status !== 200) throw new Error(`handoff answered ${res.status}`);
  });
  return [baseline, handoff];
}

/**
 * The bench table's row. Runs in the bench's own process (the handler is called directly, no HTTP), on a
 * throwaway database; the app reads its environment once, so this section sets it before importing the app.
 */
export const handoffBench: Bench = {
  name: "continue cart",
  async run(ctx) {
    const db = await throwawayDatabase(ctx.adminUrl, "handoff");
    Object.assign(process.env, appEnv({ DATABASE_URL: db.url, LOG_LEVEL: "silent" }));
    const { setDatabase } = await import("../../app/db.server");
    const { openDatabase } = await import("../../app/db/connect.server");
    const { env } = await import("../../app/env.server");
    // The app reads its environment once, and an earlier section of the same run may have read it first: open this
    // section's database by its URL, and sign with the API secret the app holds.
    const app = openDatabase({ url: db.url, poolSize: 4 });
    setDatabase(app);
    const n = Number(process.env.BENCH_N ?? 500);
    const measure = async (name: string, run: () => Promise<unknown>): Promise<BenchRow> => ({
      name,
      samples: await timeSamples(run, n, Math.min(50, n)),
    });
    try {
      await app.ready;
      ctx.log(`continue cart: ${n} handoffs`);
      const [baseline, handoff] = await benchHandoff({
        prisma: app.prisma,
        shop: "bench-cart.myshopify.com",
        apiSecret: env().SHOPIFY_API_SECRET,
        measure,
      });
      const value = percentile(handoff.samples, 95);
      const base = percentile(baseline.samples, 95);
      return [
        {
          figure: `${HANDOFF_ROW} p95 (ms)`,
          value,
          unit: "ms",
          baselineLabel: `${baseline.name} p95`,
          baseline: base,
          ratio: value / base,
          target: `p95 < ${HANDOFF_TARGET_P95_MS} ms`,
          met: value < HANDOFF_TARGET_P95_MS,
          note: `p50 ${percentile(handoff.samples, 50).toFixed(1)} ms`,
        },
      ];
    } finally {
      await app.close();
      await db.drop();
    }
  },
};
