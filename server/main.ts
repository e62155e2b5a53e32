// `npm start`: serves the production build (after `npm run build`) on PORT (default 3000). `npm run build` bundles
// this file (and server/request-handler.ts) to build/server-main.js, so production runs plain `node`, no TypeScript loader.
// The web process's wiring lives in app/runtime/web.server.ts: this file starts it by name, through the build.
// NODE_ENV defaults to production (./production-env, first, before anything reads it).
import "./production-env";
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import pino from "pino";
import { env } from "../app/env.server";
import { errorMessage } from "../app/lib/errors";
import { pinoOptions } from "../app/lib/logger.server";
import type { WebProcess, WebProcessOptions } from "../app/runtime/web.server";
import { createAppRequestHandler } from "./request-handler";
import { describeError, exitOnCrash } from "./crash";
import { createHttpServer } from "./http-server";
import { serverLimits, trustedProxyHops } from "./limits";
import { BodyBudget } from "./bodies";
import { ConnectionGate, intakeProblem } from "./connections";
import { listenForOperations } from "./operations-listener";

const root = process.cwd();
// The app's logger options (app/lib/logger.server.ts): JSON lines, the same redaction as every other line.
const logger = pino(pinoOptions(process.env.LOG_LEVEL ?? "info"));

/** What the build's entry module (app/entry.server.tsx) exports beside Remix's handler. */
type WebEntry = { startWebProcess(options?: WebProcessOptions): WebProcess };

// An unauthenticated client must never be able to stop the process (and the worker running in it). Request
// handling is written not to leave rejections unhandled (app/lib/body-limit.server.ts); should one slip through
// anyway, it is logged, without the request, and the server carries on serving: a rejected promise leaves no
// state half-changed the way a throw out of a callback can.
process.on("unhandledRejection", (reason) => {
  logger.error({ err: describeError(reason) }, "unhandled rejection (ignored; the server carries on)");
});

let server: Server | undefined;
let web: WebProcess | undefined;
let draining = false;

/**
 * Report not ready, keep answering for `delayMs` (a load balancer's next looks at /readyz see the 503 and send new
 * requests elsewhere; until then whatever still arrives is answered, not refused), then stop accepting, let open
 * requests finish, stop the worker, write pending intake and close the database.
 */
async function drain(delayMs = 0): Promise<void> {
  draining = true;
  web?.operations.markDraining(); // /readyz answers 503 from here on
  // Open keep-alive connections would hold server.close() until they time out: idle ones go now, and every answer
  // from here on closes its connection, so a client's next request opens a new one the balancer routes.
  server?.closeIdleConnections();
  if (delayMs > 0) {
    logger.info({ drain_delay_ms: delayMs }, "draining: not ready; answering until the delay ends, then closing");
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await web?.stop();
}

// After a crash the process is in an unknown state: it drains at once.
exitOnCrash(
  (err) => logger.fatal({ err }, "uncaught exception: draining and exiting"),
  () => drain(),
);

let stopping = false;
function stop(code: number, delayMs: number) {
  if (stopping) return;
  stopping = true;
  void drain(delayMs).finally(() => process.exit(code));
}
// SIGTERM is how an orchestrator replaces a process behind its load balancer: it gets the drain delay. SIGINT is
// someone at a terminal: no balancer to wait for.
process.once("SIGTERM", () => stop(0, drainDelayMs()));
process.once("SIGINT", () => stop(130, 0));

/** DRAIN_DELAY_MS; none when the configuration is invalid (the process is exiting on that anyway). */
function drainDelayMs(): number {
  try {
    return env().DRAIN_DELAY_MS;
  } catch {
    return 0;
  }
}

async function main() {
  const buildPath = path.join(root, "build/server/index.js");
  if (!existsSync(buildPath)) {
    logger.fatal(`no production build at ${buildPath}: run \`npm run build\` first`);
    process.exit(1);
  }
  // Importing the build validates the configuration (app/env.server.ts): a ConfigError names what is missing.
  const build = (await import(pathToFileURL(buildPath).href).catch((err: unknown) => {
    logger.fatal(errorMessage(err));
    process.exit(1);
  })) as ServerBuild;
  // Connections, time and body memory a client gets before anything is verified (./limits.ts, docs/security.md).
  let limits: ReturnType<typeof serverLimits>;
  try {
    limits = serverLimits();
  } catch (err) {
    logger.fatal(errorMessage(err));
    process.exit(1);
  }
  web = (build.entry.module as unknown as WebEntry).startWebProcess();
  if (web.operationsAddress) {
    listenForOperations(web.operations, web.operationsAddress).then(
      ({ url }) => logger.info(`health and metrics on ${url}`),
      (err: Error) => logger.error({ err: err.message }, "the operations listener (OPS_PORT) could not start"),
    );
  }
  // Intake: body memory (./bodies.ts) and connections (./connections.ts). Either exhausted for long: not ready, so
  // a balancer sends elsewhere and an orchestrator sees it.
  const budget = new BodyBudget(limits.bodyBytesInFlight);
  const gate = new ConnectionGate(limits, trustedProxyHops() === 0);
  web.operations.watch("intake", () => intakeProblem(budget, gate, limits.saturatedNotReadyMs));
  const handler = createAppRequestHandler({
    build,
    clientDir: path.join(root, "build/client"),
    logger,
    limits,
    budget,
  });
  const port = Number(process.env.PORT ?? 3000);
  // While draining, every answer closes its connection: a client that keeps its connections alive (a load balancer,
  // Shopify) would otherwise hold the drain open for as long as it sends (server.close() waits for each connection).
  const answer: typeof handler = (req, res) => {
    if (draining) res.shouldKeepAlive = false;
    handler(req, res);
  };
  server = createHttpServer(answer, limits, gate).listen(port, process.env.HOST ?? "0.0.0.0", () => {
    logger.info(`listening on http://localhost:${port}`);
  });
}

void main();
