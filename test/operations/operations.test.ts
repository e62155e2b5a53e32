// One process's health and metrics answers (app/runtime/operations.server.ts), what /healthz, /readyz and
// /metrics serve on the app's port and on the operations listener: readiness from its parts (migrations, the
// database, the worker's heartbeat, draining), and who may read the metrics.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase } from "~/db/connect.server";
import { createOperations } from "~/runtime/operations.server";
import { HEARTBEAT_STALE_MS } from "~/sync/heartbeat.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { parseMetrics, total } from "../helpers/prometheus";

const TOKEN = "operations-test-token-0123456789";
let db: TestDatabase;

beforeAll(async () => {
  vi.stubEnv("METRICS_TOKEN", TOKEN);
  db = await createTestDatabase();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await db?.close();
});

const body = (answer: { body: string }) => JSON.parse(answer.body) as unknown;

describe("readiness", () => {
  it("ready when migrated and the database answers; not ready once draining (SIGTERM or a crash), alive throughout", async () => {
    const operations = createOperations({ database: db });
    await new Promise((r) => setTimeout(r, 0)); // the migrations' promise has settled
    expect(operations.liveness()).toMatchObject({ status: 200 });
    const ready = await operations.readiness();
    expect(ready.status).toBe(200);
    expect(body(ready)).toEqual({ ready: true, checks: { migrations: "applied", database: "ok", draining: false } });
    operations.markDraining();
    const draining = await operations.readiness();
    expect(draining.status).toBe(503);
    expect(body(draining)).toMatchObject({ ready: false, checks: { draining: true } });
    expect(operations.liveness()).toMatchObject({ status: 200 });
  });

  it("where the process runs the sync worker: not ready before its first heartbeat, nor with a stale one", async () => {
    let beat: number | undefined;
    const operations = createOperations({ database: db, worker: { lastBeat: () => beat } });
    await new Promise((r) => setTimeout(r, 0));
    expect(body(await operations.readiness())).toMatchObject({ ready: false, checks: { worker: "no heartbeat yet" } });
    beat = Date.now() - HEARTBEAT_STALE_MS - 1_000;
    expect(body(await operations.readiness())).toMatchObject({ ready: false, checks: { worker: "heartbeat stale" } });
    beat = Date.now() - 30_000; // a long job may delay a beat: half a minute is still fresh
    const fresh = await operations.readiness();
    expect(fresh.status).toBe(200);
    expect(body(fresh)).toMatchObject({ ready: true, checks: { worker: "ok" } });
  });

  it("asks the database at most once a second, whatever the request rate (an unauthenticated /readyz flood)", async () => {
    const operations = createOperations({ database: db });
    await new Promise((r) => setTimeout(r, 0));
    const queries = vi.spyOn(db.prisma, "$queryRawUnsafe");
    try {
      const started = Date.now();
      let answers = 0;
      while (Date.now() - started < 2_500) {
        const batch = await Promise.all(Array.from({ length: 50 }, () => operations.readiness()));
        for (const answer of batch) expect(answer.status).toBe(200);
        answers += batch.length;
      }
      const seconds = (Date.now() - started) / 1000;
      console.log(`${answers} readiness answers in ${seconds.toFixed(1)} s, ${queries.mock.calls.length} queries`);
      expect(answers).toBeGreaterThan(200);
      expect(queries.mock.calls.length).toBeGreaterThanOrEqual(1);
      expect(queries.mock.calls.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    } finally {
      queries.mockRestore();
    }
  });

  it("a database unreachable from the start: not ready at once, not alive (a restart is the cure), and the metrics still answer (ready 0, no queue gauges)", async () => {
    const down = openDatabase({ url: "postgresql://app:hunter2@127.0.0.1:1/app" });
    try {
      const operations = createOperations({ database: down, databaseTimeoutMs: 1_000 });
      await down.ready.catch(() => undefined);
      const started = Date.now();
      const answer = await operations.readiness();
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(answer.status).toBe(503);
      expect(answer.body).not.toContain("hunter2");
      // Migrations that could not run at start: a restart is the cure, so liveness says so.
      expect(operations.liveness().status).toBe(503);
      const metrics = await operations.metrics(`Bearer ${TOKEN}`, "private");
      expect(metrics.status).toBe(200);
      const samples = parseMetrics(metrics.body);
      expect(total(samples, "merchant_integration_ready")).toBe(0);
      expect(samples.some((s) => s.name === "merchant_integration_queue_jobs")).toBe(false);
    } finally {
      await down.close().catch(() => undefined);
    }
  });
});

describe("metrics access", () => {
  it("the bearer token is required wherever one is configured; a wrong or missing one gets 401 and no metrics", async () => {
    const operations = createOperations({ database: db });
    for (const listener of ["public", "private"] as const) {
      for (const authorization of [undefined, "Bearer wrong-token", `Basic ${TOKEN}`, TOKEN, `Bearer ${TOKEN}x`]) {
        const refused = await operations.metrics(authorization, listener);
        expect(refused.status, `${listener} ${authorization}`).toBe(401);
        expect(refused.headers["WWW-Authenticate"]).toMatch(/^Bearer/);
        expect(refused.body).not.toContain("merchant_integration");
      }
      const allowed = await operations.metrics(`Bearer ${TOKEN}`, listener);
      expect(allowed.status).toBe(200);
      expect(allowed.headers["Content-Type"]).toMatch(/^text\/plain; version=0\.0\.4/);
      const samples = parseMetrics(allowed.body);
      expect(total(samples, "merchant_integration_ready")).toBe(1);
      expect(
        samples.find((s) => s.name === "merchant_integration_queue_jobs" && s.labels.state === "due"),
      ).toBeDefined();
      expect(samples.some((s) => s.name === "process_cpu_seconds_total")).toBe(true);
    }
  });

  it("without a token configured, /metrics exists only on the operations listener (never on the app's public port)", async () => {
    vi.stubEnv("METRICS_TOKEN", "");
    vi.resetModules();
    const fresh = await import("~/runtime/operations.server");
    const operations = fresh.createOperations({ database: db });
    expect((await operations.metrics(undefined, "public")).status).toBe(404);
    expect((await operations.metrics(undefined, "private")).status).toBe(200);
    vi.stubEnv("METRICS_TOKEN", TOKEN);
  });

  it("while the token is rotated (METRICS_TOKEN=new,old) both open the metrics; a token too short to guess is refused at start", async () => {
    const next = "operations-test-next-token-98765";
    vi.stubEnv("METRICS_TOKEN", `${next},${TOKEN}`);
    vi.resetModules();
    const fresh = await import("~/runtime/operations.server");
    const operations = fresh.createOperations({ database: db });
    for (const token of [next, TOKEN]) expect((await operations.metrics(`Bearer ${token}`, "public")).status).toBe(200);
    expect((await operations.metrics(`Bearer ${next},${TOKEN}`, "public")).status).toBe(401);
    vi.stubEnv("METRICS_TOKEN", TOKEN);
    const { parseEnv, ConfigError } = await import("~/env.server");
    expect(() => parseEnv({ NODE_ENV: "test", METRICS_TOKEN: "short" })).toThrow(ConfigError);
    expect(() => parseEnv({ NODE_ENV: "test", METRICS_TOKEN: "has a space in it, too long" })).toThrow(/METRICS_TOKEN/);
    expect(parseEnv({ NODE_ENV: "test", OPS_PORT: "0" }).OPS_PORT).toBe(0);
  });
});
