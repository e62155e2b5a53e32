// `npm start`: serves the production build (after `npm run build`) on PORT (default 3000). `npm run build` bundles
// this file (and server/app.ts) to build/server-main.js, so production runs plain `node`, no TypeScript loader.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import pino from "pino";
import { createAppServer } from "./app";

const root = process.cwd();
const logger = pino({ level: process.env.LOG_LEVEL ?? "info" });

async function main() {
  const buildPath = path.join(root, "build/server/index.js");
  const build = (await import(pathToFileURL(buildPath).href).catch(() => {
    logger.fatal(`no production build at ${buildPath}: run \`npm run build\` first`);
    process.exit(1);
  })) as ServerBuild;
  const app = createAppServer({ build, clientDir: path.join(root, "build/client"), logger });
  const port = Number(process.env.PORT ?? 3000);
  const server = app.listen(port, process.env.HOST ?? "0.0.0.0", () => {
    logger.info(`listening on http://localhost:${port}`);
  });
  // Stop taking connections first; the app's own SIGTERM handler then stops the worker and closes the database.
  process.once("SIGTERM", () => server.close());
  process.once("SIGINT", () => server.close());
}

void main();
