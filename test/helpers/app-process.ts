// The web process as a deployment runs it (`node server/main.ts` over the production build, the sync worker in the
// process) on a PostgreSQL database, for the tests of what only whole processes show: outages, restarts, several
// processes behind one address. Every process started is stopped by stopAllApps().
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { TEST_API_KEY, TEST_API_SECRET } from "./shopify";

const ROOT = path.resolve(__dirname, "../..");

export interface AppProcess {
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
  /** SIGTERM (drains) and waits for the exit. */
  stop(): Promise<void>;
}

const started: AppProcess[] = [];

/** `npm start` on `databaseUrl` with the sync worker in the process; `env` adds to or overrides the defaults. */
export function startApp(
  port: number,
  databaseUrl: string,
  encryptionKeys: string,
  env: Record<string, string> = {},
): AppProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      SHOPIFY_API_KEY: TEST_API_KEY,
      SHOPIFY_API_SECRET: TEST_API_SECRET,
      SHOPIFY_APP_URL: "https://app.example.com",
      ENCRYPTION_KEYS: encryptionKeys,
      WORKER_IN_PROCESS: "true",
      WORKER_CONCURRENCY: "8",
      WORKER_POLL_MS: "250",
      ALLOW_LOOPBACK_SERVICE_URLS: "true",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => {
    if (child.exitCode !== 0 && child.signalCode === null) console.error(`app exited ${child.exitCode}:\n${output}`);
  });
  const app: AppProcess = {
    url: `http://127.0.0.1:${port}`,
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  started.push(app);
  return app;
}

export const stopAllApps = () => Promise.all(started.map((a) => a.stop()));

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The status `url` answers with (0: no answer within a second). */
export async function statusOf(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  state?: () => Promise<unknown>,
): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check());) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${state ? `: ${JSON.stringify(await state())}` : ""}`);
    await sleep(100);
  }
}
