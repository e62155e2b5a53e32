// Runs the app's production build in the test process, over real HTTP, on a test database.
// The build is made once and reused until a file under app/ changes (dev/build.ts, shared with the demo).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import express from "express";
import type { Logger } from "pino";
import type { Database } from "~/db/connect.server";
import type { WebProcess, WebProcessOptions } from "~/runtime/web.server";
import { ensureBuild, ROOT, SERVER_BUILD as BUILD } from "../../dev/build";
import { createAppRequestHandler } from "../../server/request-handler";
import { TEST_API_KEY, TEST_API_SECRET } from "./shopify";

export { ensureBuild };

type WebEntry = { startWebProcess(options?: WebProcessOptions): WebProcess };

export interface RunningApp {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the built app on a free port, sharing `db` with the test. `env` adds or overrides variables
 * (they are read when the build is first imported, once per test file).
 */
export async function startApp(
  db: Database,
  env: Record<string, string> = {},
  options: { logger?: Logger } = {},
): Promise<RunningApp> {
  ensureBuild();
  // Listen first: the app's URL (SHOPIFY_APP_URL) must be known before the build is imported.
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    SHOPIFY_API_KEY: TEST_API_KEY,
    SHOPIFY_API_SECRET: TEST_API_SECRET,
    SHOPIFY_APP_URL: url,
    WORKER_IN_PROCESS: "false",
    LOG_LEVEL: "silent",
    ...env,
  });
  const build = await import(/* @vite-ignore */ pathToFileURL(BUILD).href);
  // The web process's start, as server/main.ts makes it, on the test's database (the worker runs where a test says).
  (build.entry.module as WebEntry).startWebProcess({ database: db, worker: false });
  app.use(createAppRequestHandler({ build, clientDir: path.join(ROOT, "build/client"), logger: options.logger }));
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
