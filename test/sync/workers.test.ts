// Scale-out on PostgreSQL: real `npm run worker` processes (server/worker.ts) on the throwaway database, with
// their real collaborators (encrypted settings and grants read from the database, the service client).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { parseKeyring } from "~/crypto/secret-box.server";
import { storeGrant } from "~/connections/grant-lifecycle.server";
import { serviceOrigins } from "~/service/client.server";
import { recordSyncDelivery } from "~/sync/intake-batcher.server";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";
import { importCounts, mintTokens, SHOP, settingsFor, shopifyFulfillment, shopifyOrder } from "./support";
import { emulatorState, injectFault, startTestEmulator } from "../helpers/emulator";
import { serviceSettingsRow } from "../helpers/service-settings";

const ROOT = path.resolve(__dirname, "../..");
const KEYS = `w1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);

let db: TestDatabase;
let emulator: RunningEmulator;
const children: ChildProcess[] = [];

function startWorkerProcess(extra: Record<string, string> = {}): ChildProcess {
  // Node itself with tsx's loader, not the tsx wrapper: a SIGKILL must reach the worker, not a parent that
  // would die and leave the real worker running.
  const child = spawn(process.execPath, ["--import", "tsx", "server/worker.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: db.url!,
      ENCRYPTION_KEYS: KEYS,
      SHOPIFY_API_KEY: "test-api-key",
      SHOPIFY_API_SECRET: "test-api-secret",
      SHOPIFY_APP_URL: "https://app.example.com",
      LOG_LEVEL: "warn",
      WORKER_POLL_MS: "100",
      WORKER_CONCURRENCY: "4",
      WORKER_POOL_SIZE: "3",
      OPS_PORT: "0", // health and metrics on a free port: several workers run at once
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  child.on("exit", (code, signal) => {
    if (code && code !== 0) console.error(`worker exited ${code} ${signal ?? ""}: ${err.slice(-2000)}`);
  });
  children.push(child);
  return child;
}

const ready = (child: ChildProcess) =>
  new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`worker exited before it was ready (${code})`)));
  });

const stopChild = (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill(signal);
  });

async function waitFor(check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("timed out");
}

describe.runIf(usingPostgres())("worker processes on PostgreSQL", () => {
  const customers = ["8000000001", "8000000002", "8000000003", "8000000004"];

  beforeAll(async () => {
    [db, emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
    const settings = settingsFor(emulator);
    await db.prisma.shopSettings.create({
      data: serviceSettingsRow(SHOP, { ...settings, environment: "sandbox" }, keyring),
    });
    for (const [i, customerId] of customers.entries()) {
      const workspaceId = i % 2 ? "ws-globex" : "ws-acme";
      const tokens = mintTokens(emulator, workspaceId);
      await storeGrant(
        db.prisma,
        {
          shop: SHOP,
          customerId,
          workspaceId,
          // The origins that issued the tokens: the worker sends them only there.
          boundOrigins: serviceOrigins(settings),
          tokens: {
            accessToken: tokens.access_token,
            refreshToken: tokens.refresh_token,
            accessTokenExpiresAt: new Date(Date.now() + 3600_000),
            scopes: tokens.scope.split(" "),
          },
        },
        { keyring },
      );
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => stopChild(c, "SIGKILL")));
    await emulator?.close();
    await db?.close();
  });

  it("three worker processes import 1,000 jobs, each exactly once", async () => {
    const orders = Array.from({ length: 800 }, (_, i) =>
      shopifyOrder({ customer: { id: Number(customers[i % customers.length]) } }),
    );
    const fulfillments = orders.slice(0, 200).map((order) => shopifyFulfillment(order));
    // Shipments first for some orders: they wait for their order and follow it.
    const deliveries = [
      ...fulfillments.slice(0, 50).map((f) => ({ topic: "FULFILLMENTS_CREATE", payload: f })),
      ...orders.map((o) => ({ topic: "ORDERS_CREATE", payload: o })),
      ...fulfillments.slice(50).map((f) => ({ topic: "FULFILLMENTS_CREATE", payload: f })),
    ];
    for (let i = 0; i < deliveries.length; i += 50) {
      await Promise.all(
        deliveries
          .slice(i, i + 50)
          .map((d, j) =>
            recordSyncDelivery(db.prisma, { shop: SHOP, topic: d.topic, eventId: `evt-${i + j}`, payload: d.payload }),
          ),
      );
    }
    expect(await db.prisma.job.count()).toBe(1000);

    const started = Date.now();
    const workers = [startWorkerProcess(), startWorkerProcess(), startWorkerProcess()];
    await Promise.all(workers.map(ready));
    // A waiting shipment re-checks once a minute at most; the order's import wakes it at once.
    await waitFor(async () => (await db.prisma.job.count({ where: { status: "done" } })) === 1000, 110_000);
    const seconds = (Date.now() - started) / 1000;
    await Promise.all(workers.map((w) => stopChild(w)));

    const state = await emulatorState(emulator);
    const orderCounts = importCounts(state, "/api/v1/orders");
    const shipmentCounts = importCounts(state, "/api/v1/shipments");
    expect(orderCounts.size).toBe(800);
    expect(shipmentCounts.size).toBe(200);
    expect([...orderCounts.values()].every((n) => n === 1)).toBe(true);
    expect([...shipmentCounts.values()].every((n) => n === 1)).toBe(true);
    expect(state.orders).toHaveLength(800);
    expect(state.shipments).toHaveLength(200);
    // No two workers ever sent the same job at once: no request was a replay or an in-flight conflict.
    const sent = state.requests.filter((r) => r.status === 201);
    expect(sent.filter((r) => r.replayed)).toHaveLength(0);
    expect(state.requests.filter((r) => r.status === 409)).toHaveLength(0);
    const byWorker = await db.prisma.job.groupBy({ by: ["leasedBy"], _count: true });
    expect(byWorker.length).toBe(3);
    expect(await db.prisma.syncRecord.count({ where: { state: "imported" } })).toBe(1000);
    console.log(
      `1,000 jobs by 3 worker processes in ${seconds.toFixed(1)} s; per worker: ${byWorker.map((w) => w._count).join(", ")}`,
    );
  }, 150_000);

  it("a worker process killed mid-import: its job is taken over after the lease and imported once", async () => {
    await db.prisma.job.deleteMany();
    const order = shopifyOrder({ customer: { id: Number(customers[0]) } });
    // The service takes 4 s on this order: the worker is inside the request when it is killed.
    await injectFault(emulator, { path: "/api/v1/orders", delay_ms: 4_000, times: 1 });
    const doomed = startWorkerProcess({ WORKER_LEASE_MS: "3000" });
    await ready(doomed);
    await recordSyncDelivery(db.prisma, { shop: SHOP, topic: "ORDERS_CREATE", eventId: "evt-kill", payload: order });
    await waitFor(async () => (await db.prisma.job.count({ where: { status: "running" } })) === 1, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    await stopChild(doomed, "SIGKILL");
    const heir = startWorkerProcess({ WORKER_LEASE_MS: "3000" });
    await ready(heir);
    await waitFor(async () => (await db.prisma.job.count({ where: { status: "done" } })) === 1, 30_000);
    await stopChild(heir);
    const job = await db.prisma.job.findFirstOrThrow();
    expect(job.attempts).toBeGreaterThanOrEqual(2); // 3 when the heir first meets the dead request still in flight (409)
    expect(job.leasedBy).not.toBe(null);
    const state = await emulatorState(emulator);
    expect(importCounts(state, "/api/v1/orders").get(String(order.id))).toBe(1);
  }, 60_000);
});
