// `npm run bench`: webhook intake latency on PostgreSQL, with baselines measured in the same run.
//
// Uses BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test as the admin
// URL, creates a throwaway database beside it (dropped at the end), applies the migrations and measures:
//   - baselines: a bare `SELECT 1` round trip and a plain one-row insert, through the same Prisma client;
//   - recordSyncDelivery: the intake statement the webhook routes use (delivery + record + job, one round trip);
//   - delivery insert + enqueue in an interactive transaction (what a general-purpose path would cost, for comparison);
//   - Shopify's authenticate.webhook alone (HMAC check; it also reads the shop's offline session);
//   - the webhook handler (receiveSyncWebhook: Shopify HMAC check + intake), called in process and over HTTP;
//   - Continue cart (scripts/bench/handoff.ts): the app's own time for one handoff against the proxy signature check.
// Target: intake p99 under 20 ms. Prints a table with ratios to the baselines.
import { SHOPIFY_API_VERSION } from "../app/lib/shopify-api-version";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { benchHandoff, HANDOFF_ROW, HANDOFF_TARGET_P95_MS } from "./bench/handoff";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const N = Number(process.env.BENCH_N ?? 2000);
const WARMUP = Math.min(200, N);
const SECRET = "bench-api-secret";
const SHOP = "bench-shop.myshopify.com";

const name = `bench_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE "${name}"`);
await admin.end();
const url = new URL(ADMIN_URL);
url.pathname = `/${name}`;

Object.assign(process.env, {
  NODE_ENV: "production",
  DATABASE_URL: url.toString(),
  SHOPIFY_API_KEY: "bench-api-key",
  SHOPIFY_API_SECRET: SECRET,
  SHOPIFY_APP_URL: "https://bench.example.com",
  ENCRYPTION_KEYS: `bench:${randomBytes(32).toString("base64")}`,
  WORKER_IN_PROCESS: "false",
  LOG_LEVEL: "silent",
});

// Imported after the environment is set: the app reads it once.
const { database } = await import("../app/db.server");
const { recordSyncDelivery } = await import("../app/sync/intake.server");
const { enqueueJob, orderKeyOf } = await import("../app/sync/queue.server");
const { receiveSyncWebhook } = await import("../app/sync/webhook.server");
const { authenticate } = await import("../app/shopify.server");

const db = database();
await db.ready;
const prisma = db.prisma;

let counter = 0;
const order = () => {
  counter += 1;
  return {
    id: 6_000_000_000_000 + counter,
    created_at: "2026-11-20T10:15:00-05:00",
    currency: "USD",
    customer: { id: 7_000_000_001 },
    line_items: [
      { id: 9_000_000_000_000 + counter * 2, title: "Blue mug", quantity: 1, current_quantity: 1, sku: "MUG-1", product_id: 632910392 },
      { id: 9_000_000_000_001 + counter * 2, title: "Tea", quantity: 2, current_quantity: 2, sku: "TEA-1", product_id: 632910393 },
    ],
  };
};

function signedRequest(target: string, body: string) {
  return new Request(target, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": "orders/create",
      "X-Shopify-Shop-Domain": SHOP,
      "X-Shopify-Hmac-Sha256": createHmac("sha256", SECRET).update(body, "utf8").digest("base64"),
      "X-Shopify-Webhook-Id": randomUUID(),
      "X-Shopify-Event-Id": randomUUID(),
      "X-Shopify-Api-Version": SHOPIFY_API_VERSION,
      "X-Shopify-Triggered-At": new Date().toISOString(),
    },
    body,
  });
}

interface Row {
  name: string;
  samples: number[];
}

async function measure(label: string, run: () => Promise<unknown>, concurrency = 1): Promise<Row> {
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < N) {
        next += 1;
        const t = performance.now();
        await run();
        samples.push(performance.now() - t);
      }
    }),
  );
  process.stderr.write(`  measured ${label}\n`);
  return { name: label, samples: samples.sort((a, b) => a - b) };
}

const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];

// An HTTP server around the real handler (the route file is just `action = ({request}) => receiveSyncWebhook(request)`).
const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const response = await receiveSyncWebhook(
    new Request(`http://localhost${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) }),
  );
  res.writeHead(response.status).end();
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const httpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/orders/create`;

const rows: Row[] = [];
try {
  process.stderr.write(`bench on ${url.host}${url.pathname}, ${N} samples each (+${WARMUP} warm-up)\n`);
  rows.push(await measure("baseline: SELECT 1", () => prisma.$queryRaw`SELECT 1`));
  rows.push(
    await measure("baseline: plain insert (1 row)", () =>
      prisma.webhookDelivery.create({ data: { shop: "baseline", topic: "x", eventId: randomUUID(), payload: {} }, select: { id: true } }),
    ),
  );
  rows.push(
    await measure("intake: recordSyncDelivery (1 statement)", () =>
      recordSyncDelivery(prisma, { shop: SHOP, topic: "ORDERS_CREATE", eventId: randomUUID(), payload: order() }),
    ),
  );
  rows.push(
    await measure("intake: delivery + enqueue (interactive tx)", () => {
      const payload = order();
      return prisma.$transaction(async (tx) => {
        const { id: deliveryId } = await tx.webhookDelivery.create({
          data: { shop: SHOP, topic: "ORDERS_CREATE", eventId: randomUUID(), payload },
          select: { id: true },
        });
        await enqueueJob(tx, { shop: SHOP, kind: "order", orderKey: orderKeyOf(String(payload.id)), deliveryId });
      });
    }),
  );
  rows.push(
    await measure("duplicate delivery (same event id)", (() => {
      const payload = order();
      return () => recordSyncDelivery(prisma, { shop: SHOP, topic: "ORDERS_CREATE", eventId: "same-event", payload });
    })()),
  );
  rows.push(
    await measure("authenticate.webhook alone (HMAC, session read)", () =>
      authenticate.webhook(signedRequest("https://bench.example.com/webhooks/orders/create", JSON.stringify(order()))),
    ),
  );
  rows.push(
    await measure("webhook handler: HMAC + intake (in process)", () =>
      receiveSyncWebhook(signedRequest("https://bench.example.com/webhooks/orders/create", JSON.stringify(order()))),
    ),
  );
  rows.push(
    await measure("webhook over HTTP: HMAC + intake", () => {
      const request = signedRequest(httpUrl, JSON.stringify(order()));
      return fetch(request).then((r) => r.arrayBuffer());
    }),
  );
  rows.push(
    await measure("intake under load (16 concurrent)", () =>
      recordSyncDelivery(prisma, { shop: SHOP, topic: "ORDERS_CREATE", eventId: randomUUID(), payload: order() }), 16),
  );
} finally {
  server.close();
  rows.push(...(await benchHandoff({ prisma, shop: SHOP, apiSecret: SECRET, measure })));
  await db.close();
  const cleanup = new pg.Client({ connectionString: ADMIN_URL });
  await cleanup.connect();
  await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await cleanup.end();
}

const [select1, insert] = rows;
const f = (ms: number) => ms.toFixed(2).padStart(7);
const r = (x: number) => `${x.toFixed(1)}x`.padStart(7);
const header = `${"measurement".padEnd(50)} ${"p50 ms".padStart(7)} ${"p95 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"max ms".padStart(7)} ${"p50/SEL1".padStart(8)} ${"p99/SEL1".padStart(8)} ${"p50/INS".padStart(8)} ${"p99/INS".padStart(8)}`;
console.log(`\nWebhook intake on PostgreSQL (${N} samples each; ratios against baselines measured in this run)\n`);
console.log(header);
console.log("-".repeat(header.length));
for (const row of rows) {
  const s = row.samples;
  console.log(
    `${row.name.padEnd(50)} ${f(pct(s, 50))} ${f(pct(s, 95))} ${f(pct(s, 99))} ${f(s[s.length - 1])} ${r(pct(s, 50) / pct(select1.samples, 50)).padStart(8)} ${r(pct(s, 99) / pct(select1.samples, 99)).padStart(8)} ${r(pct(s, 50) / pct(insert.samples, 50)).padStart(8)} ${r(pct(s, 99) / pct(insert.samples, 99)).padStart(8)}`,
  );
}
const intake = rows.find((x) => x.name.startsWith("webhook over HTTP"))!;
const p99 = pct(intake.samples, 99);
console.log(`\nTarget: webhook intake p99 < 20 ms → ${p99.toFixed(2)} ms over HTTP: ${p99 < 20 ? "met" : "NOT met"}`);
const handoff = rows.find((x) => x.name === HANDOFF_ROW)!;
const p95 = pct(handoff.samples, 95);
console.log(`Target: the app's own time for one cart handoff p95 < ${HANDOFF_TARGET_P95_MS} ms → ${p95.toFixed(2)} ms: ${p95 < HANDOFF_TARGET_P95_MS ? "met" : "NOT met"}`);
process.exit(0);
