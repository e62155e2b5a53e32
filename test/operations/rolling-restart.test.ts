// A rolling restart as an orchestrator does one: two web processes (the sync worker in each) on one PostgreSQL
// database behind one address, a small round-robin balancer that sends requests only to processes whose /readyz
// last answered 200 (looked at once a second) and retries nothing; 40 orders a second from a sender that retries
// like Shopify; one process restarted (SIGTERM, exit, start, ready), then the other. Asserted: no answer other
// than 200 or 503 (no refused connection, no cut-off answer: the balancer's 502), every order answered 200 once,
// stored once and imported exactly once. A process told to stop keeps answering, reporting not ready, for
// DRAIN_DELAY_MS before it closes its listener, which is what the balancer needs to stop sending to it.
import { randomBytes } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { connectShops } from "../../scripts/bench/connected-shops";
import { ensureBuild } from "../helpers/app";
import { sleep, startApp, stopAllApps, waitUntil, type AppProcess } from "../helpers/app-process";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";
import { freePort } from "../helpers/demo";
import { emulatorState, startTestEmulator } from "../helpers/emulator";
import { sendWebhook, TEST_SHOP } from "../helpers/shopify";
import { importCounts, shopifyOrder } from "../sync/support";

const KEYS = `roll:${randomBytes(32).toString("base64")}`;
const RATE = 40; // orders a second
const PROBE_EVERY_MS = 1_000; // the balancer's readiness probe
const DRAIN_DELAY_MS = "2500"; // above one probe interval plus the probe's own time
const RETRY_AFTER_MS = 1_000; // Shopify's back-off, compressed
// Shopify's senders keep a bounded number of connections open: deliveries beyond them wait their turn rather than
// open thousands of sockets to the balancer on a loaded machine.
const SENDER_CONNECTIONS = 64;

/** A readiness probe: /readyz may take up to 2 s for the database (docs/operations.md), so a 3 s timeout. */
async function probe(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

interface Balancer {
  url: string;
  /** Backends by the port they listen on; those whose last /readyz was 200 get traffic. */
  ready: Set<number>;
  close(): Promise<void>;
}

/** Round robin over `ports`, following /readyz; 503 when none is ready, 502 when the chosen one fails; no retries. */
async function startBalancer(ports: number[]): Promise<Balancer> {
  const ready = new Set<number>();
  let next = 0;
  let probing = true;
  const probes = (async () => {
    while (probing) {
      await Promise.all(
        ports.map(async (port) => {
          if ((await probe(`http://127.0.0.1:${port}/readyz`)) === 200) ready.add(port);
          else ready.delete(port);
        }),
      );
      await sleep(PROBE_EVERY_MS);
    }
  })();
  const server: Server = createServer((req, res) => {
    const candidates = ports.filter((p) => ready.has(p));
    if (candidates.length === 0) {
      res.writeHead(503, { "content-type": "text/plain", "x-balancer": "no ready backend" }).end();
      return;
    }
    const port = candidates[next++ % candidates.length];
    const upstream = request(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end("bad gateway");
      else res.destroy();
    });
    req.pipe(upstream);
  });
  // Longer than any pause in the sender: a connection the client reuses is never closed under it by the balancer.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ready,
    async close() {
      probing = false;
      await probes;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Attempt {
  order: number;
  status: number | string;
}

describe.runIf(usingPostgres())("a rolling restart of two web processes behind a balancer, 40 orders a second", () => {
  let db: TestDatabase;
  let emulator: RunningEmulator;
  let balancer: Balancer;
  const ports: number[] = [];
  const apps: AppProcess[] = [];
  const start = (i: number) => (apps[i] = startApp(ports[i], db.url!, KEYS, { DRAIN_DELAY_MS }));
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    dispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connections: SENDER_CONNECTIONS, keepAliveTimeout: 60_000 }));
    ensureBuild();
    [db, emulator] = await Promise.all([createTestDatabase("postgres"), startTestEmulator()]);
    await connectShops(db.prisma, emulator, [TEST_SHOP], "7000000001", KEYS);
    ports.push(await freePort(), await freePort());
    start(0);
    start(1);
    balancer = await startBalancer(ports);
    await waitUntil(async () => balancer.ready.size === 2, 90_000, "both processes ready");
  }, 300_000);

  afterAll(async () => {
    setGlobalDispatcher(dispatcher);
    await balancer?.close();
    await stopAllApps();
    await emulator?.close();
    await db?.close();
  }, 60_000);

  it("restarting one process and then the other: only 200s and 503s, every order imported exactly once", async () => {
    const orders: ReturnType<typeof shopifyOrder>[] = [];
    const attempts: Attempt[] = [];
    let sending = true;
    const deliveries: Promise<void>[] = [];
    const sender = (async () => {
      const began = Date.now();
      for (let i = 0; sending; i++) {
        const due = began + (i * 1000) / RATE;
        if (due > Date.now()) await sleep(due - Date.now());
        const order = shopifyOrder();
        orders.push(order);
        deliveries.push(
          (async () => {
            for (;;) {
              const status = await sendWebhook(balancer.url, "orders/create", order, {
                eventId: `roll-${i}`,
                webhookId: `roll-${i}`,
              }).then(
                async (r) => (
                  await r.arrayBuffer(),
                  r.headers.get("x-balancer") ? `${r.status} from the balancer` : r.status
                ),
                (e: Error & { cause?: { code?: string } }) => `no answer (${e.cause?.code ?? e.message})`,
              );
              attempts.push({ order: i, status });
              if (status === 200) return;
              await sleep(RETRY_AFTER_MS);
            }
          })(),
        );
      }
    })();

    await sleep(2_000);
    for (const i of [0, 1]) {
      await apps[i].stop(); // SIGTERM: not ready, answering for DRAIN_DELAY_MS, then closed, worker drained
      start(i);
      await waitUntil(async () => balancer.ready.has(ports[i]), 90_000, `process ${i} ready again`);
    }
    await sleep(2_000);
    sending = false;
    await sender;
    await Promise.all(deliveries);

    const statuses = new Map<string, number>();
    for (const a of attempts) statuses.set(String(a.status), (statuses.get(String(a.status)) ?? 0) + 1);
    console.log(`rolling restart: ${orders.length} orders, attempts ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect([...statuses.keys()].filter((s) => !["200", "503", "503 from the balancer"].includes(s))).toEqual([]);
    for (let i = 0; i < orders.length; i++)
      expect(attempts.filter((a) => a.order === i && a.status === 200).length, `order ${i}`).toBe(1);

    const ids = orders.map((o) => String(o.id));
    await waitUntil(
      async () =>
        (await db.prisma.syncRecord.count({ where: { externalId: { in: ids }, state: "imported" } })) === ids.length,
      90_000,
      "every import",
    );
    expect(await db.prisma.webhookDelivery.count({ where: { eventId: { startsWith: "roll-" } } })).toBe(ids.length);
    const counts = importCounts(await emulatorState(emulator), "/api/v1/orders");
    expect(ids.filter((id) => counts.get(id) !== 1)).toEqual([]);
  }, 480_000);
});
