// `npm start`: serves the production build (after `npm run build`) on PORT (default 3000). `npm run build` bundles
// this file (and server/app.ts) to build/server-main.js, so production runs plain `node`, no TypeScript loader.
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import pino from "pino";
import { createAppServer } from "./app";

const root = process.cwd();
const logger = pino({ level: process.env.LOG_LEVEL ?? "info" });

// An unauthenticated client must never be able to stop the process (and the worker running in it). Request
// handling is written not to leave rejections unhandled (app/lib/body-limit.server.ts); should one slip through
// anyway, it is logged, without the request, and the server carries on serving.
process.on("unhandledRejection", (reason) => {
  logger.error({ err: describe(reason) }, "unhandled rejection (ignored; the server carries on)");
});
process.on("uncaughtException", (err) => {
  logger.error({ err: describe(err) }, "uncaught exception (ignored; the server carries on)");
});

function describe(err: unknown) {
  return err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { value: String(err) };
}

async function main() {
  const buildPath = path.join(root, "build/server/index.js");
  if (!existsSync(buildPath)) {
    logger.fatal(`no production build at ${buildPath}: run \`npm run build\` first`);
    process.exit(1);
  }
  // Importing the build validates the configuration (app/env.server.ts): a ConfigError names what is missing.
  const build = (await import(pathToFileURL(buildPath).href).catch((err: unknown) => {
    logger.fatal(err instanceof Error ? err.message : String(err));
    process.exit(1);
  })) as ServerBuild;
  const app = createAppServer({ build, clientDir: path.join(root, "build/client"), logger });
  const port = Number(process.env.PORT ?? 3000);
  const server = app.listen(port, process.env.HOST ?? "0.0.0.0", () => {
    logger.info(`listening on http://localhost:${port}`);
  });
  // A slow client holds a connection at most this long: headers within 20 s, the whole request within 60 s
  // (Node's defaults, 60 s and 5 minutes, let a few slow clients tie the server up for long).
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  // Stop taking connections first; the app's own SIGTERM handler then stops the worker and closes the database.
  process.once("SIGTERM", () => server.close());
  process.once("SIGINT", () => server.close());
}

void main();
