// The image's build and start, without a Docker daemon: the Dockerfile's steps (scripts/production-build.sh install,
// then build) run in a clean clone of this repository's HEAD, with Node 22 first on PATH as the image's base has it,
// then the image's command (`npm start`) and the worker from the same tree (`npm run start:worker`) on PostgreSQL.
// Asserted: what the Dockerfile runs is this script (so the two cannot drift), the development dependencies are gone
// after the build, /readyz answers 200, and a signed orders/create webhook is imported by the worker.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/server";
import { connectShops } from "../../scripts/bench/connected-shops";
import { createTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db";
import { freePort } from "../helpers/demo";
import { emulatorState, startTestEmulator } from "../helpers/emulator";
import { sendWebhook, TEST_API_KEY, TEST_API_SECRET, TEST_SHOP } from "../helpers/shopify";
import { importCounts, shopifyOrder } from "../sync/support";

const ROOT = path.resolve(__dirname, "../..");
const KEYS = `img:${randomBytes(32).toString("base64")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The image's PATH: Node 22 (this test runs on it) ahead of the machine's own.
const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
// What this machine's network needs to reach the registry (a proxy, its certificate authority), as an image build
// on such a network is given it; nothing of the app's.
const NETWORK = Object.fromEntries(
  [
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
  ]
    .filter((name) => process.env[name])
    .map((name) => [name, process.env[name]!]),
);
/** Only what is given, on that PATH (the app's typings make NODE_ENV required; the build runs without it). */
const imageEnv = (extra: Record<string, string> = {}) =>
  ({ PATH, HOME: process.env.HOME ?? "", ...NETWORK, ...extra }) as unknown as NodeJS.ProcessEnv;

describe("the Dockerfile", () => {
  it("builds and starts through scripts/production-build.sh and the npm scripts the tests run", () => {
    const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    const runs = [...dockerfile.matchAll(/^RUN (?:--mount=\S+ )*(.+)$/gm)].map((m) => m[1]);
    expect(runs).toEqual([
      "sh scripts/production-build.sh install",
      expect.stringMatching(/^sh scripts\/production-build\.sh build(?: |$)/),
    ]);
    expect(dockerfile).toMatch(/^FROM node:22[\w.-]*$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^CMD \["npm", "start"\]$/m);
    const ignored = readFileSync(path.join(ROOT, ".dockerignore"), "utf8").split("\n");
    for (const entry of ["node_modules", "build", ".env", "data", ".git"]) expect(ignored).toContain(entry);
  });
});

interface Started {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** An npm script in `dir`, as the image runs it (its own process group, so the test can always end it). */
function npmScript(dir: string, script: string, env: Record<string, string>): Started {
  const child = spawn("npm", ["run", "--silent", script], {
    cwd: dir,
    env: imageEnv(env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-6000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
      await Promise.race([exited, sleep(15_000)]);
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
    },
  };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check().catch(() => false));) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await sleep(250);
  }
}

describe.runIf(usingPostgres())("the production sequence from a clean clone (PostgreSQL)", () => {
  let dir: string;
  let db: TestDatabase;
  let emulator: RunningEmulator;
  const running: Started[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "image-"));
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    execFileSync("git", ["clone", "--quiet", "--no-checkout", ROOT, dir]);
    execFileSync("git", ["checkout", "--quiet", "--detach", head], { cwd: dir });
    [db, emulator] = await Promise.all([createTestDatabase("postgres"), startTestEmulator()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await emulator?.close();
    await db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it("install, build and prune as the Dockerfile does; `npm start` and the worker serve and import a signed webhook", async () => {
    const build = (step: string) =>
      execFileSync("sh", ["scripts/production-build.sh", step], {
        cwd: dir,
        env: imageEnv(),
        stdio: ["ignore", "pipe", "pipe"],
        maxBuffer: 64 * 1024 * 1024,
      });
    build("install");
    build("build");
    // Production dependencies only: the compilers, the test tools and the development Node are gone, the app's
    // runtime (Prisma's generated client with it) is there.
    for (const devOnly of ["vite", "vitest", "@remix-run/dev", "node", "@shopify/cli"])
      expect(existsSync(path.join(dir, "node_modules", devOnly)), devOnly).toBe(false);
    expect(existsSync(path.join(dir, "node_modules/.prisma/client"))).toBe(true);
    expect(existsSync(path.join(dir, "build/server-main.js"))).toBe(true);

    const port = await freePort();
    const env = {
      NODE_ENV: "production",
      DATABASE_URL: db.url!,
      SHOPIFY_API_KEY: TEST_API_KEY,
      SHOPIFY_API_SECRET: TEST_API_SECRET,
      SHOPIFY_APP_URL: "https://app.example.com",
      ENCRYPTION_KEYS: KEYS,
      ALLOW_LOOPBACK_SERVICE_URLS: "true",
      LOG_LEVEL: "warn",
    };
    const web = npmScript(dir, "start", { ...env, PORT: String(port), HOST: "127.0.0.1", WORKER_IN_PROCESS: "false" });
    running.push(web);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) })).status === 200,
      90_000,
      () => `/readyz 200 from npm start:\n${web.output()}`,
    );
    const worker = npmScript(dir, "start:worker", { ...env, OPS_PORT: "0", WORKER_POLL_MS: "250" });
    running.push(worker);

    await connectShops(db.prisma, emulator, [TEST_SHOP], "7000000001", KEYS);
    const order = shopifyOrder();
    const answer = await sendWebhook(url, "orders/create", order);
    expect(answer.status).toBe(200);
    await waitFor(
      async () => importCounts(await emulatorState(emulator), "/api/v1/orders").get(String(order.id)) === 1,
      90_000,
      () => `the order imported:\n${worker.output()}`,
    );
    expect(await db.prisma.syncRecord.findFirst({ where: { externalId: String(order.id) } })).toMatchObject({
      state: "imported",
    });
  }, 900_000);
});
