// One service rate across processes (issue 39): schedulers of different processes (each its own connection pool
// and holder) draw on one budget in PostgreSQL, so together they send at the rate the service announces instead
// of each at the whole of it; and when the database is away a process paces itself on a share of the last known
// rate (never unlimited) and says so in its metrics.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { registry } from "~/lib/metrics.server";
import { clientKeyOf, FIRST_WAVE, RateScheduler, scheduledFetch } from "~/service/client.server";
import { postgresRateStore } from "~/sync/shared-rate.server";
import type { RunningEmulator } from "../../emulator/server";
import { emulatorInternals } from "../../emulator/server";
import { postgresForProcesses, usingPostgres } from "../helpers/db";
import { startTestEmulator } from "../helpers/emulator";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy";
import { mintTokens } from "./support";

const RATE = { capacity: 10, leak_per_second: 10 };

/** `count` order imports sent at once through `scheduler`; resolves with their statuses. */
function sendOrders(scheduler: RateScheduler, emulator: RunningEmulator, token: string, count: number) {
  const client = clientKeyOf(emulator.url, "sandbox-client");
  const send = scheduledFetch(scheduler, client, "shop-a.myshopify.com");
  return Promise.all(
    Array.from({ length: count }, async () => {
      const id = randomUUID();
      const response = await send(`${emulator.url}/api/v1/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "idempotency-key": id },
        body: JSON.stringify({
          external_order_id: id,
          currency: "USD",
          ordered_at: "2026-11-20T15:15:00Z",
          lines: [{ external_line_id: "l1", title: "Mug", quantity: 1 }],
        }),
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
}

/** The emulator's accepted imports per second after its bucket's first burst. */
function sustainedRate(emulator: RunningEmulator): number {
  const times = emulatorInternals(emulator)
    .store.requests.filter((r) => r.path === "/api/v1/orders" && r.status === 201)
    .map((r) => Date.parse(r.at))
    .sort((a, b) => a - b)
    .slice(RATE.capacity);
  return (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000);
}

const refused = (emulator: RunningEmulator) =>
  emulatorInternals(emulator).store.requests.filter((r) => r.path === "/api/v1/orders" && r.status === 429).length;

describe.runIf(usingPostgres())("the service's rate shared through PostgreSQL", () => {
  const pg = postgresForProcesses();
  const connect = pg.connect;

  it("two processes send together at the rate the service announces, with no storm of 429s", async () => {
    const emulator = await startTestEmulator({ rate_limit: RATE });
    try {
      const token = mintTokens(emulator, "ws-acme").access_token;
      const [one, two] = [await connect(), await connect()];
      const first = new RateScheduler({ shared: postgresRateStore(one.prisma, "process-1") });
      const second = new RateScheduler({ shared: postgresRateStore(two.prisma, "process-2") });
      const started = Date.now();
      const statuses = (
        await Promise.all([sendOrders(first, emulator, token, 30), sendOrders(second, emulator, token, 30)])
      ).flat();
      const seconds = (Date.now() - started) / 1000;
      // Each believing it held the whole bucket, they would send twice the rate and bounce off 429s.
      expect(refused(emulator)).toBeLessThanOrEqual(1);
      expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(58);
      expect(sustainedRate(emulator)).toBeLessThanOrEqual(RATE.leak_per_second * 1.15);
      // ...and the shared budget is not a slower one: 60 requests, 10 at once then 10 a second.
      expect(seconds).toBeLessThan(((60 - RATE.capacity) / RATE.leak_per_second) * 1.5 + 1);
    } finally {
      await emulator.close();
    }
  });

  it("with the database away, a process paces itself on a share of the last known rate and says so", async () => {
    const rate = { capacity: 10, leak_per_second: 20 };
    const emulator = await startTestEmulator({ rate_limit: rate });
    const target = new URL(pg.db.url!);
    let proxy: TcpProxy | undefined;
    try {
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const token = mintTokens(emulator, "ws-acme").access_token;
      const away = await connect(proxy.urlFor(pg.db.url!));
      const scheduler = new RateScheduler({
        shared: postgresRateStore(away.prisma, "process-away"),
        leaseTimeoutMs: 300,
      });
      // Learned while the database answers: the service's policy, one process drawing on it.
      expect(await sendOrders(scheduler, emulator, token, 5)).toEqual(Array(5).fill(201));
      emulatorInternals(emulator).store.requests.length = 0;
      await new Promise((r) => setTimeout(r, 1_000)); // the service's bucket empties

      proxy.cut();
      const started = Date.now();
      const statuses = await sendOrders(scheduler, emulator, token, 25);
      const seconds = (Date.now() - started) / 1000;
      // Never unlimited: at most half the rate (one process seen, plus one it cannot see), from half a bucket.
      const share = rate.leak_per_second / 2;
      expect(statuses.every((s) => s === 201)).toBe(true);
      expect(seconds).toBeGreaterThanOrEqual(((25 - rate.capacity / 2) / share) * 0.9);
      expect(refused(emulator)).toBe(0);
      const metrics = await registry.getMetricsAsJSON();
      const value = (name: string, labels: Record<string, string> = {}) =>
        metrics
          .find((m) => m.name.endsWith(name))
          ?.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
          .reduce((sum, v) => sum + v.value, 0);
      expect(value("service_rate_fallback")).toBe(1);
      expect(value("service_rate_leases_total", { outcome: "failed" })).toBeGreaterThan(0);

      // The database back: the process draws on the shared budget again.
      proxy.restore();
      expect(await sendOrders(scheduler, emulator, token, 3)).toEqual(Array(3).fill(201));
      const after = await registry.getMetricsAsJSON();
      expect(after.find((m) => m.name.endsWith("service_rate_fallback"))?.values[0]?.value).toBe(0);
    } finally {
      proxy?.restore();
      await proxy?.close();
      await emulator.close();
    }
  });
  it("before any process knows the policy, the processes together send one first wave; a policy known from an earlier run lets a new process start with a batch", async () => {
    // A service that answers only when told to (a slow one), announcing 100 a second with room for 90.
    const client = `https://slow.example ${randomUUID()}`;
    const sent: string[] = [];
    const waiting: Array<() => void> = [];
    const answer = () =>
      new Response("{}", {
        status: 201,
        headers: { "ratelimit-policy": '"default";q=100;w=1', ratelimit: '"default";r=90;t=0' },
      });
    const slowService =
      (who: string): typeof fetch =>
      () => {
        sent.push(who);
        return new Promise<Response>((resolve) => waiting.push(() => resolve(answer())));
      };
    const send = (scheduler: RateScheduler, who: string, count: number) => {
      const fetch = scheduledFetch(scheduler, client, "shop-a.myshopify.com", slowService(who));
      return Array.from({ length: count }, () => fetch("https://slow.example/api/v1/orders", { method: "POST" }));
    };
    const [one, two, three] = [await connect(), await connect(), await connect()];
    const first = new RateScheduler({ shared: postgresRateStore(one.prisma, "cold-1") });
    const second = new RateScheduler({ shared: postgresRateStore(two.prisma, "cold-2") });
    const cold = send(first, "first", 20);
    await new Promise((r) => setTimeout(r, 200));
    cold.push(...send(second, "second", 20));
    await new Promise((r) => setTimeout(r, 300));
    // Nothing announced yet: several requests find the policy out, not one, and not a wave per process.
    expect(sent.filter((who) => who === "first").length).toBeGreaterThan(1);
    expect(sent.length).toBeLessThanOrEqual(FIRST_WAVE);
    // The first answers announce the policy: the rest go out at its rate, not at the first wave's.
    const answerAll = setInterval(() => waiting.splice(0).forEach((release) => release()), 20);
    try {
      await Promise.all(cold);
      expect(sent.length).toBe(40);

      // A process started later finds the policy in the shared row: no first wave to wait out.
      sent.length = 0;
      clearInterval(answerAll);
      await new Promise((r) => setTimeout(r, 1_100)); // the shared bucket empties
      const later = new RateScheduler({ shared: postgresRateStore(three.prisma, "warm-3") });
      const warm = send(later, "later", 30);
      await new Promise((r) => setTimeout(r, 400));
      expect(sent.length).toBeGreaterThan(FIRST_WAVE);
      waiting.splice(0).forEach((release) => release());
      await Promise.all(warm);
    } finally {
      clearInterval(answerAll);
      waiting.splice(0).forEach((release) => release());
    }
  });
});
