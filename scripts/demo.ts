// `npm run demo`: the whole product on this machine, with no Shopify account and no internet (options: --help).
// - the service emulator, its sandbox app registered with the demo's OAuth callback;
// - the app's production build on PGlite in the data dir (or PostgreSQL), Shopify's Admin API answered inside the
//   app by the demo's MSW handlers (dev/demo/admin-api-preload.ts), optionally with separate worker processes;
// - the stand-in for Shopify on the public port: storefront, app proxy, admin (dev/storefront/server.ts);
// - a demo shop installed and configured through the app's own code, and one demo customer connected through the
//   real OAuth flow. Then it prints where to go and one `demo ready {json}` line (also written to the data dir).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { openDatabase } from "../app/db/connect.server";
import { parseEnv } from "../app/env.server";
import { ensureBuild, ROOT } from "../dev/build";
import { startCustomerAccountPages } from "../dev/customer-account/demo";
import { connectDemoCustomer } from "../dev/demo/connect";
import { emulatorConfig, parseDemoArgs, USAGE, UsageError, type DemoOptions } from "../dev/demo/options";
import type { LogFile } from "../dev/demo/log-file";
import { closeLog, logTo, quietTerminal, startNode, stopAll, waitForHttp, type Child } from "../dev/demo/processes";
import { configureService, installDemoShop } from "../dev/demo/seed";
import { customerName, DEMO_CUSTOMERS, DEMO_SHOP, orderHistory } from "../dev/demo-store";
import { createStandIn } from "../dev/storefront/server";
import { bundleUiExtensions } from "../dev/ui-extensions/bundle";

const HOST = "127.0.0.1";
const MARKER = ".merchant-integration-demo";
export const READY_FILE = "demo-ready.json";
const LOG_FILE = "demo.log";
const started = Date.now();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** --reset deletes only a directory the demo made (it leaves a marker), so a mistyped path loses nothing. */
function prepareDataDir(options: DemoOptions) {
  const marker = path.join(options.dataDir, MARKER);
  if (options.reset && existsSync(options.dataDir) && readdirSync(options.dataDir).length > 0) {
    if (!existsSync(marker))
      throw new UsageError(
        `--reset: ${options.dataDir} was not made by the demo; delete it yourself or pick another --data-dir`,
      );
    for (const entry of readdirSync(options.dataDir))
      rmSync(path.join(options.dataDir, entry), { recursive: true, force: true });
  }
  mkdirSync(options.dataDir, { recursive: true });
  writeFileSync(marker, "made by npm run demo; --reset may delete everything here\n");
}

async function main() {
  if (process.argv.includes("--help") || process.argv.includes("-h")) return console.log(USAGE);
  const options = parseDemoArgs(process.argv.slice(2));
  keptDataDir = options.dataDir;
  prepareDataDir(options);
  const logFile = path.join(options.dataDir, LOG_FILE);
  demoLog = logTo(logFile);
  const pgliteDir = path.join(options.dataDir, "pglite");
  // The production build runs on explicit values (no built-in defaults); the local ones, with the encryption key
  // kept in the data dir, are what a demo needs. NODE_ENV is the demo's own business here, not the caller's.
  Reflect.deleteProperty(process.env, "NODE_ENV");
  const local = parseEnv({ PGLITE_DATA_DIR: pgliteDir });
  // saveSettings (below, in this process) encrypts with the demo's key and checks the emulator's loopback address.
  Object.assign(process.env, {
    ENCRYPTION_KEYS: local.ENCRYPTION_KEYS,
    PGLITE_DATA_DIR: pgliteDir,
    ALLOW_LOOPBACK_SERVICE_URLS: "true",
  });

  console.log(ensureBuild("inherit") ? "Built the app." : "The app's build is up to date.");

  const appPort = await freePort();
  const accountPort = await freePort();
  const customerAccountUrl = `http://${HOST}:${accountPort}/account`;
  const publicUrl = `http://${HOST}:${options.port}`;
  const config = emulatorConfig(
    publicUrl,
    options.emulatorConfig ? JSON.parse(readFileSync(options.emulatorConfig, "utf8")) : undefined,
  );
  const configFile = path.join(options.dataDir, "emulator.json");
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: process.env.LOG_LEVEL ?? "info" };
  const emulator = startNode(
    "emulator",
    ["emulator/main.ts", "--port", "0", "--config", configFile],
    baseEnv,
    /listening on (http:\/\/\S+)/,
  );
  const emulatorUrl = await emulator.ready;

  // Seed before the app starts: PGlite is one process's database.
  const db = openDatabase({ url: options.databaseUrl, dataDir: pgliteDir });
  try {
    await db.ready;
    await installDemoShop(db.prisma, DEMO_SHOP, local.SCOPES);
    await configureService(db.prisma, DEMO_SHOP, emulatorUrl, config.clients[0]);
  } finally {
    await db.close();
  }

  // The app's and the workers' Prometheus metrics answer this bearer token (docs/operations.md); a new one each start.
  const metricsToken = randomBytes(24).toString("hex");
  const appEnv = {
    ...baseEnv,
    METRICS_TOKEN: metricsToken,
    NODE_ENV: "production",
    HOST,
    PORT: String(appPort),
    SHOPIFY_APP_URL: publicUrl,
    SHOPIFY_API_KEY: local.SHOPIFY_API_KEY,
    SHOPIFY_API_SECRET: local.SHOPIFY_API_SECRET,
    ENCRYPTION_KEYS: local.ENCRYPTION_KEYS,
    PGLITE_DATA_DIR: pgliteDir,
    DATABASE_URL: options.databaseUrl,
    WORKER_IN_PROCESS: options.workers > 0 ? "false" : "true",
    // A killed worker's jobs are taken over when their lease ends: seconds in a demo, not the default minutes.
    ...(options.workers > 0 ? { WORKER_LEASE_MS: "15000", WORKER_POLL_MS: "250" } : {}),
    // The emulator runs on this machine: the merchant's service URLs may point at loopback.
    ALLOW_LOOPBACK_SERVICE_URLS: "true",
    // No load balancer in front to wait for: a restart or Ctrl-C stops at once.
    DRAIN_DELAY_MS: "0",
    // The Admin API stand-in records the Shopify Flow triggers the app sends here (shown at /admin/flow).
    DEMO_FLOW_LOG: path.join(options.dataDir, "flow-triggers.jsonl"),
    // The Admin API stand-in's customerAccountsV2.url: where a shopper connecting from their account comes back to.
    DEMO_CUSTOMER_ACCOUNT_URL: customerAccountUrl,
  };
  const preload = [pathToFileURL(path.join(ROOT, "dev/demo/admin-api-preload.ts")).href];
  const startApp = () => startNode("app", ["server/main.ts"], appEnv, null, { preload });
  const app = startApp();
  const workers: Child[] = [];
  // Each worker answers health and metrics on a free port of its own, which its ready line names.
  const workerEnv = { ...appEnv, OPS_PORT: "0" };
  for (let i = 0; i < options.workers; i++) {
    workers.push(
      startNode(
        `worker ${i + 1}`,
        ["server/worker.ts"],
        workerEnv,
        /worker \S+ ready(?:; health and metrics on (\S+))?/,
        { preload },
      ),
    );
  }
  // Ready when /readyz says so: migrated, its database answering, its worker beating (its log may be silenced).
  const [, ...workerOps] = await Promise.all([
    waitForHttp(`http://${HOST}:${appPort}/readyz`, app),
    ...workers.map((w) => w.ready),
  ]);
  // A worker that dies is only a worker (the others and the queue's leases carry on); the emulator is the demo's
  // service. The app exits non-zero after an uncaught exception (server/main.ts): like a process manager, the demo
  // starts a fresh one on the same port, unless it keeps dying (6 exits within a minute stop the demo).
  void emulator.exited.then(() => shutdown(1, "emulator stopped"));
  const exits: number[] = [];
  const supervise = (child: Child) =>
    void child.exited.then((code) => {
      if (stopping) return;
      const now = Date.now();
      exits.push(now);
      while (exits.length > 0 && now - exits[0] > 60_000) exits.shift();
      if (exits.length > 5) return void shutdown(1, "the app keeps stopping");
      console.error(`The app stopped (${code === null ? "by a signal" : `exit code ${code}`}): starting it again.`);
      supervise(startApp());
    });
  supervise(app);

  // The admin UI extensions, bundled as Shopify's CLI would, for the stand-in's order page.
  const uiExtensionsDir = path.join(options.dataDir, "ui-extensions");
  await bundleUiExtensions(uiExtensionsDir);
  const standIn = createStandIn({
    appUrl: `http://${HOST}:${appPort}`,
    shop: DEMO_SHOP,
    apiKey: local.SHOPIFY_API_KEY,
    apiSecret: local.SHOPIFY_API_SECRET,
    uiExtensionsDir,
    flowLog: appEnv.DEMO_FLOW_LOG,
    proxyPrefix: options.proxyPath,
  });
  await new Promise<void>((resolve, reject) => {
    standIn.once("error", reject);
    standIn.listen(options.port, HOST, resolve);
  });
  closers.push(() => new Promise((resolve) => (standIn.close(() => resolve()), standIn.closeAllConnections())));

  const accounts = await startCustomerAccountPages({
    host: HOST,
    port: accountPort,
    appUrl: `http://${HOST}:${appPort}`,
    apiKey: local.SHOPIFY_API_KEY,
    apiSecret: local.SHOPIFY_API_SECRET,
    customer: DEMO_CUSTOMERS[0],
    dataDir: options.dataDir,
  });
  closers.push(accounts.close);

  // The emulator forgets everything when it stops, so the demo customer connects afresh at every start (on a
  // second start over the same data, configureService above has marked them to reconnect).
  const customer = DEMO_CUSTOMERS[0];
  await connectDemoCustomer(
    publicUrl,
    { id: customer.id, name: customerName(customer), email: customer.email },
    options.proxyPath,
  );

  const ready = {
    app_url: publicUrl,
    // Shopify opens an embedded app with its user's language on the URL (`locale`); so does the demo.
    admin_url: `${publicUrl}/app${options.locale ? `?locale=${encodeURIComponent(options.locale)}` : ""}`,
    storefront_url: `${publicUrl}/`,
    customer_account_url: customerAccountUrl,
    emulator_url: emulatorUrl,
    shop: DEMO_SHOP,
    api_secret: local.SHOPIFY_API_SECRET,
    customer_id: customer.id,
    // Shopify's order page for the connected customer's first order, with the app's order details block.
    order_page_url: `${publicUrl}/admin/orders/${orderHistory().find((o) => o.customerId === customer.id)!.id}`,
    flow_triggers_url: `${publicUrl}/admin/flow`,
    worker_pids: workers.map((w) => w.process.pid),
    // Prometheus metrics: `curl -H "Authorization: Bearer <metrics_token>" <metrics_url>` (and each worker's).
    metrics_url: `http://${HOST}:${appPort}/metrics`,
    metrics_token: metricsToken,
    worker_metrics_urls: workerOps.filter((url) => url.startsWith("http")).map((url) => `${url}/metrics`),
  };
  writeFileSync(path.join(options.dataDir, READY_FILE), JSON.stringify(ready, null, 2));
  console.log(`
The demo is running (${((Date.now() - started) / 1000).toFixed(1)} s). On this machine only:
  Admin (${DEMO_SHOP}):   ${ready.admin_url}   (Home, Sync log, Settings: already pointing at the emulator)
  Storefront:             ${ready.storefront_url}   (add products, open the cart, Continue cart)
  Connect page:           ${publicUrl}${options.proxyPath}/connect   (log in as a demo customer first)
  Customer account:       ${customerAccountUrl}   (${customerName(customer)}'s profile and an order: the account extension)
  Emulator state:         ${emulatorUrl}/_emulator/state   (what the service received)
  Order page block:       ${ready.order_page_url}   (Shopify's order page with the app's block)
  Shopify Flow triggers:  ${ready.flow_triggers_url}   (what the app sent to Flow)
  Metrics (Prometheus):   curl -H "Authorization: Bearer ${metricsToken}" ${ready.metrics_url}${workers.length ? "   (each worker's: worker_metrics_urls in the ready line)" : ""}
  ${customerName(customer)} (customer ${customer.id}) is connected to a workspace; their past orders are being imported.
  Send orders:            npm run demo:orders -- --count 20${options.dataDir === path.resolve("data/demo") ? "" : ` --data-dir ${options.dataDir}`}
Data stays in ${options.dataDir}${options.databaseUrl ? " and the PostgreSQL database" : ""}. Ctrl-C stops everything.
  Logs:                   ${logFile}   (from here on, only warnings and errors show below)`);
  console.log(`demo ready ${JSON.stringify(ready)}`);
  quietTerminal();
}

const closers: (() => Promise<void>)[] = [];
let stopping = false;
/** Where the app's data stays, said when the demo stops (set once the options are read). */
let keptDataDir: string | null = null;
/** The log file: lines it had to drop (a full disk) are counted and said when the demo stops. */
let demoLog: LogFile | null = null;
async function shutdown(code: number, reason?: string) {
  if (stopping) return;
  stopping = true;
  console.error(reason ? `Stopping the demo: ${reason}.` : "Stopping the demo…");
  await Promise.all(closers.map((close) => close().catch(() => {})));
  await stopAll();
  await closeLog();
  if (demoLog?.dropped)
    console.error(`${demoLog.dropped} log lines could not be written to ${demoLog.path} (dropped).`);
  if (keptDataDir && (code === 130 || code === 143))
    console.error(
      `Stopped. The app's data stays in ${keptDataDir}: \`npm run demo\` starts it again where it left off.`,
    );
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(130));
process.on("SIGTERM", () => void shutdown(143));

main().catch((error: unknown) => {
  console.error(error instanceof UsageError ? `${error.message}\n${USAGE}` : error);
  void shutdown(error instanceof UsageError ? 2 : 1);
});
