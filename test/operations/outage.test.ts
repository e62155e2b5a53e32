// What an operator sees when the database goes away, and when the app restarts, under a steady stream of orders: the
// production server (server/main.ts on the build, the sync worker in the process) on PostgreSQL behind a TCP proxy
// the test cuts, fed 40 orders a second by a sender that retries like Shopify (same ids, after a failure or 5 s
// without an answer). Asserted: every delivery answered during the outage is a 503 (never a 200 that was not
// stored, never a 500 or a hang); /healthz stays 200 and /readyz answers 503 while the database is away and 200
// again soon after; every order is accepted in the end and imported exactly once. The figures go to the log and to
// test-results/operations-*.json; docs/operations.md quotes them.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { connectShops } from "../../scripts/bench/connected-shops";
import { ensureBuild } from "../helpers/app";
import {
  sleep,
  startApp as startAppProcess,
  statusOf,
  stopAllApps,
  waitUntil,
  type AppProcess,
} from "../helpers/app-process";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";
import { freePort } from "../helpers/demo";
import { emulatorState, startTestEmulator } from "../helpers/emulator";
import { sendWebhook, TEST_SHOP } from "../helpers/shopify";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy";
import { importCounts, shopifyOrder } from "../sync/support";

const ROOT = path.resolve(__dirname, "../..");
const KEYS = `ops:${randomBytes(32).toString("base64")}`;
const RATE = 40; // orders a second
const SHOPIFY_TIMEOUT_MS = 5_000; // Shopify gives up on an answer after 5 s and delivers again later
const RETRY_AFTER_MS = [1_000, 2_000, 4_000]; // Shopify's back-off, compressed from minutes to seconds

/** The app with the worker in the process; restarted in place, with no load balancer to wait for (no drain delay). */
const startApp = (port: number, databaseUrl: string) =>
  startAppProcess(port, databaseUrl, KEYS, { DRAIN_DELAY_MS: "0" });

/** Milliseconds since the scenario started. */
function clock() {
  const start = performance.now();
  return () => Math.round(performance.now() - start);
}

/** Every status `url` answered, polled every 100 ms until stopped. */
function watch(url: string, now: () => number) {
  const samples: { at: number; status: number }[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const at = now();
      samples.push({ at, status: await statusOf(url) });
      await sleep(100);
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await done;
    },
  };
}

interface Attempt {
  order: number;
  sentAt: number;
  answeredAt: number;
  /** The HTTP status, or what stood for one: the connection refused, no answer within Shopify's 5 s. */
  status: number | "refused" | "timeout";
}

/** One delivery attempt: its answer or why there was none. */
async function attempt(
  appUrl: () => string,
  order: ReturnType<typeof shopifyOrder>,
  eventId: string,
): Promise<Attempt["status"]> {
  const timeout = sleep(SHOPIFY_TIMEOUT_MS).then(() => "timeout" as const);
  const answer = sendWebhook(appUrl(), "orders/create", order, { eventId, webhookId: eventId }).then(
    async (response) => {
      await response.arrayBuffer();
      return response.status;
    },
    () => "refused" as const,
  );
  return Promise.race([answer, timeout]);
}

/** `orders` sent at RATE a second, each retried like Shopify does until it is answered 200; every attempt kept. */
async function deliverAll(
  appUrl: () => string,
  orders: ReturnType<typeof shopifyOrder>[],
  now: () => number,
  tag: string,
): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  const start = now();
  await Promise.all(
    orders.map(async (order, i) => {
      const due = start + (i * 1000) / RATE;
      if (due > now()) await sleep(due - now());
      for (let n = 0; ; n++) {
        const sentAt = now();
        const status = await attempt(appUrl, order, `${tag}-${i}`);
        attempts.push({ order: i, sentAt, answeredAt: now(), status });
        if (status === 200) return;
        await sleep(RETRY_AFTER_MS[Math.min(n, RETRY_AFTER_MS.length - 1)]);
      }
    }),
  );
  return attempts;
}

const tally = (attempts: Attempt[]) =>
  attempts.reduce<Record<string, number>>(
    (counts, a) => ({ ...counts, [String(a.status)]: (counts[String(a.status)] ?? 0) + 1 }),
    {},
  );

function report(name: string, figures: Record<string, unknown>) {
  console.log(`${name}: ${JSON.stringify(figures)}`);
  const dir = path.join(ROOT, "test-results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `operations-${name}.json`),
    `${JSON.stringify({ at: new Date().toISOString(), ...figures }, null, 2)}\n`,
  );
}

describe.runIf(usingPostgres())("PostgreSQL going away, and the app restarting, under 40 orders a second", () => {
  let db: TestDatabase;
  let emulator: RunningEmulator;
  let proxy: TcpProxy;
  let app: AppProcess;
  let port: number;

  beforeAll(async () => {
    ensureBuild();
    [db, emulator] = await Promise.all([createTestDatabase("postgres"), startTestEmulator()]);
    await connectShops(db.prisma, emulator, [TEST_SHOP], "7000000001", KEYS);
    const url = new URL(db.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    port = await freePort();
    app = startApp(port, proxy.urlFor(db.url!));
    await waitUntil(async () => (await statusOf(`${app.url}/readyz`)) === 200, 60_000, "the app to be ready");
  }, 120_000);

  afterAll(async () => {
    await stopAllApps();
    await proxy?.close();
    await emulator?.close();
    await db?.close();
  }, 30_000);

  /** Every order answered 200 once in the end, stored once, imported exactly once; when the last import landed. */
  async function expectEachImportedOnce(
    orders: ReturnType<typeof shopifyOrder>[],
    attempts: Attempt[],
    now: () => number,
    tag: string,
  ) {
    for (let i = 0; i < orders.length; i++)
      expect(
        attempts.filter((a) => a.order === i && a.status === 200),
        `order ${i}`,
      ).toHaveLength(1);
    const ids = orders.map((o) => String(o.id));
    await waitUntil(
      async () =>
        (await db.prisma.syncRecord.count({ where: { externalId: { in: ids }, state: "imported" } })) === ids.length,
      60_000,
      "every import",
      async () => ({
        records: await db.prisma.syncRecord.groupBy({
          by: ["state", "reasonCode"],
          where: { externalId: { in: ids } },
          _count: true,
        }),
        jobs: await db.prisma.job.groupBy({ by: ["status"], _count: true }),
        lastErrors: (await db.prisma.job.findMany({ where: { status: { not: "done" } }, take: 3 })).map(
          (j) => j.lastError,
        ),
      }),
    );
    const importedAt = now();
    expect(await db.prisma.webhookDelivery.count({ where: { eventId: { startsWith: `${tag}-` } } })).toBe(
      orders.length,
    );
    const counts = importCounts(await emulatorState(emulator), "/api/v1/orders");
    expect(ids.map((id) => counts.get(id) ?? 0)).toEqual(ids.map(() => 1));
    expect(await db.prisma.syncRecord.count({ where: { externalId: { in: ids } } })).toBe(ids.length);
    expect(await db.prisma.job.count({ where: { status: { not: "done" }, kind: "order" } })).toBe(0);
    return importedAt;
  }

  it("the database away for 8 s: deliveries answered 503, /readyz 503 then 200 again, every order imported once", async () => {
    const orders = Array.from({ length: RATE * 14 }, () => shopifyOrder());
    const now = clock();
    const readiness = watch(`${app.url}/readyz`, now);
    const liveness = watch(`${app.url}/healthz`, now);
    const sending = deliverAll(() => app.url, orders, now, "outage");
    await sleep(3_000);
    const cutAt = now();
    proxy.cut(); // a crash: every connection reset; and the database stays away
    await sleep(8_000);
    const restoredAt = now();
    proxy.restore();
    const attempts = await sending;
    const acceptedAt = now();
    const importedAt = await expectEachImportedOnce(orders, attempts, now, "outage");
    await Promise.all([readiness.stop(), liveness.stop()]);

    // While the database was away (sent after the cut, answered before it came back): 503s only, answered quickly.
    const during = attempts.filter((a) => a.sentAt >= cutAt && a.answeredAt <= restoredAt);
    expect(during.length).toBeGreaterThan(RATE * 4);
    expect(tally(during)).toEqual({ 503: during.length });
    const notReady = readiness.samples.find((s) => s.at > cutAt && s.status === 503);
    const readyAgain = readiness.samples.find((s) => s.at > restoredAt && s.status === 200);
    expect(notReady, "/readyz answered 503 while the database was away").toBeDefined();
    expect(notReady!.at).toBeLessThan(restoredAt);
    expect(readyAgain, "/readyz answered 200 again").toBeDefined();
    expect(readyAgain!.at - restoredAt).toBeLessThan(10_000);
    expect(liveness.samples.every((s) => s.status === 200)).toBe(true);
    report("database-outage", {
      orders: orders.length,
      rate_per_second: RATE,
      outage_ms: restoredAt - cutAt,
      answered_during_outage: tally(during),
      slowest_answer_during_outage_ms: Math.max(...during.map((a) => a.answeredAt - a.sentAt)),
      attempts: attempts.length,
      attempts_by_status: tally(attempts),
      not_ready_after_cut_ms: notReady!.at - cutAt,
      ready_again_after_restore_ms: readyAgain!.at - restoredAt,
      healthz_non_200: liveness.samples.filter((s) => s.status !== 200).length,
      all_accepted_after_restore_ms: acceptedAt - restoredAt,
      all_imported_after_restore_ms: importedAt - restoredAt,
      imported_exactly_once: orders.length,
    });
  }, 90_000);

  it("the app restarted (SIGTERM, drain, start again): deliveries in the gap retried, every order imported once", async () => {
    const orders = Array.from({ length: RATE * 8 }, () => shopifyOrder());
    const now = clock();
    const sending = deliverAll(() => app.url, orders, now, "restart");
    await sleep(2_000);
    const stoppedAt = now();
    await app.stop(); // drains: open requests answered, running jobs finished, pending intake written
    const exitedAt = now();
    app = startApp(port, proxy.urlFor(db.url!));
    await waitUntil(async () => (await statusOf(`${app.url}/readyz`)) === 200, 60_000, "the restarted app to be ready");
    const readyAt = now();
    const attempts = await sending;
    const importedAt = await expectEachImportedOnce(orders, attempts, now, "restart");
    // Nothing but a refused connection (the gap) or a 200: no delivery was cut off mid-answer by the restart.
    expect(Object.keys(tally(attempts)).sort()).toEqual(expect.arrayContaining(["200"]));
    for (const status of Object.keys(tally(attempts))) expect(["200", "refused", "503"]).toContain(status);
    expect(await db.prisma.job.count({ where: { status: "running" } })).toBe(0);
    // The drain does not wait on clients that keep their connections alive: each answer closes its connection.
    expect(exitedAt - stoppedAt).toBeLessThan(5_000);
    report("app-restart", {
      orders: orders.length,
      rate_per_second: RATE,
      drain_ms: exitedAt - stoppedAt,
      restart_to_ready_ms: readyAt - exitedAt,
      attempts_by_status: tally(attempts),
      all_imported_after_ready_ms: importedAt - readyAt,
      imported_exactly_once: orders.length,
    });
  }, 90_000);
});
