// Shared pieces of the bench: the table's row shape, throwaway PostgreSQL databases, child processes with their
// peak RSS and CPU time, signed Shopify deliveries (load on a server: load.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { throwawayPostgres } from "../../dev/throwaway-postgres";

export interface Row {
  figure: string;
  value: number;
  unit: string;
  /** What the figure is compared with, measured in the same run (or configured). */
  baselineLabel: string;
  baseline: number;
  /** value / baseline, or for latencies whatever the target says. */
  ratio: number;
  target: string;
  met: boolean;
  note?: string;
}

/** One bench section: a few rows of the table. Register it in registry.ts. */
export interface Bench {
  name: string;
  run(ctx: BenchContext): Promise<Row[]>;
}

export interface BenchContext {
  adminUrl: string;
  /** Extra flags for the app's node process (e.g. --cpu-prof). */
  nodeFlags: string[];
  log(message: string): void;
}

export const SECRET = "bench-api-secret";

export function appEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: "production",
    SHOPIFY_API_KEY: "bench-api-key",
    SHOPIFY_API_SECRET: SECRET,
    SHOPIFY_APP_URL: "https://bench.example.com",
    ENCRYPTION_KEYS: `bench:${randomBytes(32).toString("base64")}`,
    WORKER_IN_PROCESS: "false",
    LOG_LEVEL: "warn",
    ...extra,
  };
}

/** A throwaway database beside the admin URL; `drop()` removes it. */
export const throwawayDatabase = (adminUrl: string, tag: string) => throwawayPostgres(adminUrl, `bench_${tag}`);

export interface Child {
  process: ChildProcess;
  /** Peak resident set size so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  /** Resident set size now (VmRSS), in MiB. */
  rssMiB(): number;
  /** CPU seconds (user + system) the process used so far. */
  cpuSeconds(): number;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node [flags] --import tsx <script>` and resolves once it printed `ready` (a line matching it) or, with
 * `port`, once that port answers HTTP.
 */
export async function startNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  flags: string[] = [],
  ready: RegExp | { port: number } = /listening|ready/,
): Promise<Child> {
  const child = spawn(process.execPath, [...flags, "--import", "tsx", script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${output.slice(-2000)}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000); // kept listening after start-up: the tail only
      if (ready instanceof RegExp && ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}): ${output.slice(-2000)}`)));
    if (!(ready instanceof RegExp)) {
      const poll = () =>
        fetch(`http://127.0.0.1:${ready.port}/`, { signal: AbortSignal.timeout(2_000) }).then(
          () => (clearTimeout(timer), resolve()),
          () => setTimeout(poll, 200),
        );
      poll();
    }
  });
  return {
    process: child,
    peakRssMiB: () => statusMiB(child.pid!, "VmHWM"),
    rssMiB: () => statusMiB(child.pid!, "VmRSS"),
    cpuSeconds: () => cpuSeconds(child.pid!),
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A /proc/<pid>/status field in kB, as MiB (NaN once the process is gone). */
function statusMiB(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return kb ? Number(kb[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) of a process so far: steadier than rates on a shared machine. */
/** The middle value (the lower of the two middles for an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/**
 * A CPU profile of a window of a child's life, taken through the inspector (the child runs with
 * `--inspect=127.0.0.1:0`), so start-up and module loading stay out of it: `start()` before the window, the
 * returned `stop()` after it writes the profile to `file` (open it in Chrome's DevTools or speedscope).
 */
export async function profileWindow(child: Child, file: string): Promise<{ stop(): Promise<void> }> {
  const url = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(child.output())?.[0];
  if (!url) throw new Error("the child was not started with --inspect=127.0.0.1:0");
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => ((socket.onopen = resolve), (socket.onerror = reject)));
  let id = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  };
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      waiting.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await call("Profiler.enable");
  await call("Profiler.setSamplingInterval", { interval: 200 });
  await call("Profiler.start");
  return {
    async stop() {
      const { profile } = (await call("Profiler.stop")) as { profile: unknown };
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(profile));
      socket.close();
    },
  };
}

/** The port a started server printed (`listening on http://...:<port>`). */
/**
 * CPU seconds so far of the PostgreSQL backends serving `url`'s database (same machine): the database's share of a
 * delivery, which the app's process CPU leaves out. A backend that ends during the window takes its share with it.
 */
export async function backendCpu(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    return rows.reduce((sum, { pid }) => {
      try {
        return sum + cpuSeconds(pid);
      } catch {
        return sum; // gone meanwhile
      }
    }, 0);
  } finally {
    await client.end();
  }
}

export function freePort(): number {
  return 20_000 + Math.floor(Math.random() * 20_000);
}

let counter = 0;
/** An orders/create body in Shopify's shape, unique per call. */
export function orderBody(customerId = 7_000_000_001): string {
  counter += 1;
  const id = 6_000_000_000_000 + counter + Math.floor(Math.random() * 1e9) * 1000;
  return JSON.stringify({
    id,
    name: `#${1000 + counter}`,
    order_number: 1000 + counter,
    created_at: "2026-11-20T10:15:00-05:00",
    updated_at: "2026-11-20T10:15:03-05:00",
    currency: "USD",
    customer: { id: customerId, email: "ada@example.com" },
    line_items: [
      {
        id: id * 2,
        title: "Blue mug",
        quantity: 1,
        current_quantity: 1,
        sku: "MUG-1",
        product_id: 632910392,
        price: "19.50",
      },
      {
        id: id * 2 + 1,
        title: "Tea",
        quantity: 2,
        current_quantity: 2,
        sku: "TEA-1",
        product_id: 632910393,
        price: "9.75",
      },
    ],
  });
}

/** Shopify's webhook headers for `body`, signed with the bench's API secret. */
export function signedHeaders(body: string, shop = "bench-shop.myshopify.com"): Record<string, string> {
  const eventId = randomUUID();
  return {
    "content-type": "application/json",
    "x-shopify-topic": "orders/create",
    "x-shopify-shop-domain": shop,
    "x-shopify-hmac-sha256": createHmac("sha256", SECRET).update(body, "utf8").digest("base64"),
    "x-shopify-webhook-id": eventId,
    "x-shopify-event-id": eventId,
    "x-shopify-api-version": "2026-10",
  };
}

/** An orders/create delivery as Shopify sends it to the app: its path, signed headers and body. */
export function signedDelivery() {
  const body = orderBody();
  return { path: "/webhooks/orders/create", headers: signedHeaders(body), body };
}

/** Shopify's Admin API as the app calls it, over the global fetch (which the bench's MSW server answers). */
export const adminGraphqlOverFetch = async (shop: string, query: string, variables: Record<string, unknown>) =>
  (
    await fetch(`https://${shop}/admin/api/2026-10/graphql.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query, variables }),
    })
  ).json();

export const ratioRow = (row: Omit<Row, "ratio">): Row => ({
  ...row,
  ratio: row.baseline ? row.value / row.baseline : NaN,
});
