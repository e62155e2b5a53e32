// `npm run demo` and `npm run demo:orders` as a newcomer runs them, for the tests that drive the demo
// (test/demo.test.ts, test/operations/demo-metrics.test.ts): started in its own process group on a free port and a
// fresh data dir, ready from its `demo ready {json}` line, stopped with Ctrl-C.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");
export const DEMO_TIMEOUT_MS = 240_000;

export interface DemoReady {
  app_url: string;
  admin_url: string;
  storefront_url: string;
  customer_account_url: string;
  emulator_url: string;
  shop: string;
  api_secret: string;
  customer_id: string;
  order_page_url: string;
  flow_triggers_url: string;
  worker_pids: number[];
  metrics_url: string;
  metrics_token: string;
  worker_metrics_urls: string[];
}

export interface RunningDemo {
  ready: DemoReady;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  /** Ctrl-C; the data dir is deleted unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

// The demo as a terminal runs it: its own process group, so the stop below is Ctrl-C (SIGINT to the whole group).
const cleanEnv = () => {
  const env = { ...process.env };
  Reflect.deleteProperty(env, "NODE_ENV");
  Reflect.deleteProperty(env, "DATABASE_URL");
  return env;
};

/**
 * A demo on a fresh data dir, or (`dataDir`) a second start on one a stopped demo left; `env` over the test's
 * (whose LOG_LEVEL is silent: `{ LOG_LEVEL: "info" }` logs as a newcomer's demo does).
 */
export async function startDemo(
  args: string[] = [],
  options: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<RunningDemo> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "demo-test-"));
  const port = await freePort();
  const fresh = options.dataDir ? [] : ["--reset"];
  const child = spawn("npm", ["run", "demo", "--", "--port", String(port), "--data-dir", dataDir, ...fresh, ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...options.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const ready = new Promise<DemoReady>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "demo ready" line in ${DEMO_TIMEOUT_MS} ms:\n${output.slice(-3000)}`)),
      DEMO_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^demo ready (\{.*\})$/m.exec(output);
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line[1]) as DemoReady);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) =>
      reject(new Error(`the demo exited (${code}) before it was ready:\n${output.slice(-3000)}`)),
    );
  });
  const announced = await ready.catch(async (error: unknown) => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGINT"); // leave nothing running
    await exited;
    throw error;
  });
  return {
    ready: announced,
    dataDir,
    child,
    output: () => output,
    async stop(stopOptions = {}) {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGINT");
      await exited;
      if (!stopOptions.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function runOrders(
  demo: RunningDemo,
  count: number,
): Promise<{ order_ids: string[]; fulfillment_ids: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "demo:orders", "--", "--count", String(count), "--data-dir", demo.dataDir], {
      cwd: ROOT,
      env: cleanEnv(),
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("exit", (code) => {
      const line = /^demo orders (\{.*\})$/m.exec(output);
      if (code === 0 && line) resolve(JSON.parse(line[1]));
      else reject(new Error(`demo:orders exited ${code}:\n${output}`));
    });
  });
}

export interface EmulatorState {
  orders: { external_id: string; workspace_id: string }[];
  shipments: { external_id: string; workspace_id: string }[];
  handoffs: unknown[];
}

export async function emulatorState(demo: RunningDemo): Promise<EmulatorState> {
  return (await fetch(`${demo.ready.emulator_url}/_emulator/state`)).json() as Promise<EmulatorState>;
}

/** Waits until the emulator holds every one of these orders and shipments; returns the state. */
export async function waitForImports(
  demo: RunningDemo,
  ids: { order_ids: string[]; fulfillment_ids: string[] },
  timeoutMs = 120_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await emulatorState(demo);
    const orders = new Set(state.orders.map((o) => o.external_id));
    const shipments = new Set(state.shipments.map((s) => s.external_id));
    const missing =
      ids.order_ids.filter((id) => !orders.has(id)).length +
      ids.fulfillment_ids.filter((id) => !shipments.has(id)).length;
    if (missing === 0) return state;
    if (Date.now() > deadline) throw new Error(`${missing} imports still missing at the emulator`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
