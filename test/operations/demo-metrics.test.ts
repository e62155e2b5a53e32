// The metrics an operator scrapes, from the demo's own processes: `npm run demo`, a Continue cart click and
// `npm run demo:orders -- --count 20` (scraped during the run and after), then every family of docs/operations.md
// carries values, the counters agree with the database (imports counted = records imported, deliveries accepted =
// deliveries stored), no label names a shop, customer or order, and a scrape without the token is refused. On the
// embedded default (one process) and, with TEST_DATABASE_URL, on PostgreSQL with a separate worker process.
import { rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/connect.server";
import { DEMO_PRODUCTS } from "../../dev/demo-store";
import { throwawayPostgres, type ThrowawayPostgres } from "../../dev/throwaway-postgres";
import {
  DEMO_TIMEOUT_MS,
  emulatorState,
  runOrders,
  startDemo,
  waitForImports,
  type RunningDemo,
} from "../helpers/demo";
import { total, scrape, type Sample } from "../helpers/prometheus";

const P = "merchant_integration_";

/** Every family docs/operations.md lists: each process's scrape names them all (HELP lines), used or not. */
const FAMILIES = [
  "webhook_deliveries_total",
  "webhook_answer_seconds",
  "intake_batch_deliveries",
  "queue_jobs",
  "queue_oldest_due_job_age_seconds",
  "workers_alive",
  "queue_leased_jobs_total",
  "queue_reclaimed_jobs_total",
  "queue_lease_failures_total",
  "imports_total",
  "import_failures_total",
  "import_attempts_total",
  "import_lag_seconds",
  "service_requests_total",
  "service_request_seconds",
  "service_scheduler_wait_seconds",
  "service_interactive_refused_total",
  "shopify_admin_query_cost_points_total",
  "shopify_admin_throttle_wait_seconds_total",
  "shopify_admin_throttled_total",
  "backfills_running",
  "backfill_pages_total",
  "handoffs_total",
  "handoff_budget_refusals_total",
  "db_pool_connections",
  "db_pool_waiting_requests",
  "db_pool_max_connections",
  "ready",
  "worker_heartbeat_age_seconds",
].map((name) => P + name);

/** What the run exercised, by the groups: each must have counted something (summed over the processes). */
const EXERCISED: Record<string, [string, Record<string, string>?][]> = {
  intake: [
    [`${P}webhook_deliveries_total`, { outcome: "accepted" }],
    [`${P}webhook_deliveries_total`, { outcome: "duplicate" }],
    [`${P}webhook_answer_seconds_count`],
    [`${P}intake_batch_deliveries_count`],
  ],
  queue: [[`${P}queue_leased_jobs_total`], [`${P}workers_alive`]],
  imports: [
    [`${P}imports_total`, { outcome: "imported" }],
    [`${P}import_attempts_total`, { result: "ok" }],
    [`${P}import_lag_seconds_count`],
  ],
  service: [
    [`${P}service_requests_total`, { endpoint: "orders", status: "201" }],
    [`${P}service_request_seconds_count`],
    [`${P}service_scheduler_wait_seconds_count`],
  ],
  "Shopify Admin API and backfills": [[`${P}shopify_admin_query_cost_points_total`], [`${P}backfill_pages_total`]],
  "Continue cart": [[`${P}handoffs_total`, { outcome: "created" }]],
  "database pool": [[`${P}db_pool_max_connections`]],
  process: [["process_cpu_seconds_total"], ["nodejs_heap_size_used_bytes"], ["process_resident_memory_bytes"]],
};

const SYNC_TOPICS = ["orders_create", "orders_updated", "fulfillments_create", "fulfillments_update"];

/** One Continue cart click, as the storefront block sends it through the store's app proxy. */
async function continueCart(demo: RunningDemo) {
  const response = await fetch(new URL("/apps/workspace/cart", demo.ready.storefront_url), {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({
      token: "metrics-test-cart",
      locale: "en",
      lines: [{ variant_id: DEMO_PRODUCTS[0].variantId, quantity: 2 }],
    }),
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ ok: true });
}

async function refusedWithoutToken(url: string) {
  expect((await fetch(url)).status).toBe(401);
  const wrong = await fetch(url, { headers: { Authorization: "Bearer not-the-token-at-all" } });
  expect(wrong.status).toBe(401);
  expect(await wrong.text()).not.toContain("merchant_integration");
}

/** Label values must be small fixed sets: never the shop, a customer, an order or a shipment. */
function expectNoIdentifyingLabels(samples: Sample[], ids: string[]) {
  const values = new Set(samples.flatMap((s) => Object.values(s.labels)));
  for (const value of values) {
    expect(value).not.toMatch(/myshopify|@|^\d{7,}$|[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(ids).not.toContain(value);
  }
}

interface Run {
  demo: RunningDemo;
  /** The metrics URLs of the demo's processes (the app, then its workers). */
  urls: string[];
  sent: { order_ids: string[]; fulfillment_ids: string[] };
  samples: Sample[];
  texts: string[];
}

/** The scenario: backfill done, a Continue cart click, 20 demo orders (scraped meanwhile), imports settled. */
async function exercise(demo: RunningDemo): Promise<Run> {
  const urls = [demo.ready.metrics_url, ...demo.ready.worker_metrics_urls];
  // The connected customer's past orders come through the Admin API when the demo starts (the backfill).
  await waitForImports(demo, { order_ids: ["5500000001", "5500000002", "5500000003"], fulfillment_ids: [] });
  await continueCart(demo);
  const sending = runOrders(demo, 20);
  const during = await Promise.all(urls.map((url) => scrape(url, demo.ready.metrics_token)));
  expect(during.every((s) => s.length > 0)).toBe(true);
  const sent = await sending;
  await waitForImports(demo, sent);
  // Settled: the records imported so far are what the emulator holds, once each.
  const state = await emulatorState(demo);
  const atService = state.orders.length + state.shipments.length;
  let samples: Sample[] = [];
  let texts: string[] = [];
  for (const deadline = Date.now() + 30_000; ;) {
    texts = await Promise.all(
      urls.map(async (url) =>
        (await fetch(url, { headers: { Authorization: `Bearer ${demo.ready.metrics_token}` } })).text(),
      ),
    );
    samples = (await Promise.all(urls.map((url) => scrape(url, demo.ready.metrics_token)))).flat();
    if (total(samples, `${P}imports_total`, { outcome: "imported" }) >= atService || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(total(samples, `${P}imports_total`, { outcome: "imported" })).toBe(atService);
  // And each process says it is ready, on the same address as its metrics.
  for (const url of urls) {
    const readyz = url.replace(/\/metrics$/, "/readyz");
    for (const deadline = Date.now() + 30_000; (await fetch(readyz)).status !== 200;) {
      if (Date.now() > deadline) throw new Error(`${readyz} did not answer 200`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return { demo, urls, sent, samples, texts };
}

function expectFamilies(run: Run) {
  for (const text of run.texts) for (const family of FAMILIES) expect(text).toContain(`# HELP ${family} `);
  for (const [group, series] of Object.entries(EXERCISED)) {
    for (const [name, labels] of series)
      expect(total(run.samples, name, labels), `${group}: ${name} ${JSON.stringify(labels ?? {})}`).toBeGreaterThan(0);
  }
  // Every process reports its readiness (1 or 0: a scrape on a loaded machine may find a database check over its bound).
  expect(run.samples.filter((s) => s.name === `${P}ready`)).toHaveLength(run.urls.length);
  const { ready } = run.demo;
  expectNoIdentifyingLabels(run.samples, [
    ready.shop,
    ready.customer_id,
    ...run.sent.order_ids,
    ...run.sent.fulfillment_ids,
  ]);
}

/** The counters against the rows: imports counted = records imported, deliveries accepted = deliveries stored. */
async function expectCountersMatch(samples: Sample[], query: (sql: string) => Promise<{ kind: string; n: number }[]>) {
  const records = await query(
    `SELECT kind, count(*)::int AS n FROM "SyncRecord" WHERE state IN ('imported', 'updated') GROUP BY kind`,
  );
  for (const kind of ["order", "shipment"]) {
    const counted = total(samples, `${P}imports_total`, { kind, outcome: "imported" });
    expect(counted, kind).toBe(records.find((r) => r.kind === kind)?.n ?? 0);
    expect(counted, kind).toBeGreaterThan(0);
  }
  const deliveries = await query(`SELECT 'delivery' AS kind, count(*)::int AS n FROM "WebhookDelivery"`);
  const accepted = SYNC_TOPICS.reduce(
    (sum, topic) => sum + total(samples, `${P}webhook_deliveries_total`, { topic, outcome: "accepted" }),
    0,
  );
  expect(accepted).toBe(deliveries[0].n);
}

describe("metrics of npm run demo (PGlite, worker in the app)", () => {
  let run: Run;
  let demo: RunningDemo;

  beforeAll(async () => {
    demo = await startDemo();
    run = await exercise(demo);
  }, DEMO_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    await demo?.stop();
  }, 30_000);

  it("the app's /metrics refuses a scrape without the token and shows every family with values, no label naming a shop, customer or order", async () => {
    await refusedWithoutToken(demo.ready.metrics_url);
    expect(run.urls).toEqual([demo.ready.metrics_url]);
    expectFamilies(run);
  });

  it("imports counted = records imported, deliveries accepted = deliveries stored (the database read after the demo stops)", async () => {
    await demo.stop({ keepData: true });
    const db = openDatabase({ dataDir: path.join(demo.dataDir, "pglite") });
    try {
      await db.ready;
      await expectCountersMatch(run.samples, (sql) => db.prisma.$queryRawUnsafe(sql));
    } finally {
      await db.close();
      rmSync(demo.dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)("metrics of npm run demo --database-url (PostgreSQL) --workers 1", () => {
  let run: Run;
  let demo: RunningDemo;
  let database: ThrowawayPostgres;

  beforeAll(async () => {
    database = await throwawayPostgres(process.env.TEST_DATABASE_URL!, "demo_metrics");
    demo = await startDemo(["--database-url", database.url, "--workers", "1"]);
    run = await exercise(demo);
  }, DEMO_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    await demo?.stop();
    await database?.drop();
  }, 60_000);

  it("the app and the worker each answer /metrics only with the token; together they show every family, no identifying label", async () => {
    expect(run.urls).toHaveLength(2);
    for (const url of run.urls) await refusedWithoutToken(url);
    expectFamilies(run);
    // The worker imports, the app takes the deliveries in.
    const [app, worker] = await Promise.all(run.urls.map((url) => scrape(url, demo.ready.metrics_token)));
    expect(total(app, `${P}webhook_deliveries_total`, { outcome: "accepted" })).toBeGreaterThan(0);
    expect(total(worker, `${P}imports_total`, { outcome: "imported" })).toBeGreaterThan(0);
    expect(total(worker, `${P}db_pool_connections`)).toBeGreaterThan(0);
  });

  it("imports counted = records imported, deliveries accepted = deliveries stored", async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await expectCountersMatch(run.samples, async (sql) => (await client.query(sql)).rows);
    } finally {
      await client.end();
    }
  });
});
