// `npm start`: serves the production build (after `npm run build`) on PORT (default 3000). `npm run build` bundles
// this file (and server/app.ts) to build/server-main.js, so production runs plain `node`, no TypeScript loader.
// The web process's wiring lives in app/runtime/web.server.ts: this file starts it by name, through the build.
// NODE_ENV defaults to production (./production-env, first, before anything reads it).
import "./production-env";
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import pino from "pino";
import { errorMessage } from "../app/lib/errors";
import { pinoOptions } from "../app/lib/logger.server";
import type { WebProcess, WebProcessOptions } from "../app/runtime/web.server";
import { createAppServer } from "./app";
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

/** Stop accepting, let open requests finish, then stop the worker, write pending intake, close the database. */
async function drain(): Promise<void> {
  draining = true;
  web?.operations.markDraining(); // /readyz answers 503 from here on
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await web?.stop();
}

exitOnCrash((err) => logger.fatal({ err }, "uncaught exception: draining and exiting"), drain);

let stopping = false;
function stop(code: number) {
  if (stopping) return;
  stopping = true;
  // Open keep-alive connections would hold server.close() until they time out: idle ones go now.
  server?.closeIdleConnections();
  void drain().finally(() => process.exit(code));
}
process.once("SIGTERM", () => stop(0));
process.once("SIGINT", () => stop(130));

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
  const handler = createAppServer({ build, clientDir: path.join(root, "build/client"), logger, limits, budget });
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
