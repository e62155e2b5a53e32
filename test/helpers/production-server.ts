// The production entry itself (`node build/server-main.js`, as `npm start` runs it) in a child process: for what
// only the whole process shows (its HTTP server's connection limits and timeouts, its memory, every line it writes
// to stdout and stderr). On a throwaway PostgreSQL database when TEST_DATABASE_URL is set, else on a fresh PGlite
// directory, started once before (initdb and migrations) so that the process measured is a restart, as in a
// deployment, and its memory at rest is not inflated by the first start's peak.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureServerBuild, ROOT, SERVER_ENTRY_BUILD } from "../../dev/build";
import { throwawayPostgres } from "../../dev/throwaway-postgres";
import { freePort } from "./demo";
import { TEST_API_KEY, TEST_API_SECRET } from "./shopify";

export interface ProductionServer {
  url: string;
  port: number;
  /** Everything the process wrote so far, stdout and stderr, as it wrote it. */
  output(): string;
  /** Resident set size now, in MiB. */
  rssMiB(): number;
  stop(): Promise<void>;
}

/** Starts the production server with `env` over the test app's credentials; resolves once /readyz answers 200. */
export async function startProductionServer(env: Record<string, string> = {}): Promise<ProductionServer> {
  ensureServerBuild();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "prod-server-"));
  const postgres = process.env.TEST_DATABASE_URL
    ? await throwawayPostgres(process.env.TEST_DATABASE_URL, "prod_server")
    : null;
  const fullEnv = {
    PATH: process.env.PATH ?? "",
    NODE_ENV: "production",
    SHOPIFY_API_KEY: TEST_API_KEY,
    SHOPIFY_API_SECRET: TEST_API_SECRET,
    SHOPIFY_APP_URL: `http://127.0.0.1:${port}`,
    ENCRYPTION_KEYS: `k1:${randomBytes(32).toString("base64")}`,
    ...(postgres ? { DATABASE_URL: postgres.url } : { PGLITE_DATA_DIR: path.join(dataDir, "pglite") }),
    WORKER_IN_PROCESS: "false",
    DRAIN_DELAY_MS: "0", // no load balancer in front to wait for: SIGTERM stops at once
    PORT: String(port),
    HOST: "127.0.0.1",
    ...env,
  };
  const cleanUp = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  };
  try {
    if (!postgres) await (await start(fullEnv, port)).stop();
    const child = await start(fullEnv, port);
    return {
      ...child,
      async stop() {
        await child.stop();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

async function start(env: Record<string, string>, port: number): Promise<ProductionServer> {
  const child: ChildProcess = spawn(process.execPath, [SERVER_ENTRY_BUILD], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv, // only what is given (the app's typings make NODE_ENV required)
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the production server exited (${child.exitCode}): ${output.slice(-2000)}`);
    // Ready, not just alive: PGlite's start holds the event loop for seconds after the server first answers, and a
    // test measuring timeouts from then would measure that start instead.
    const up = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the production server did not start: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    port,
    output: () => output,
    rssMiB: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? NaN) / 1024,
    stop,
  };
}
