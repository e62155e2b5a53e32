// Runs the app's production build in the test process, over real HTTP, on a test database.
// The build is made once and reused until a file under app/ changes (a lock keeps parallel files from racing).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import express from "express";
import type { Logger } from "pino";
import type { Database } from "~/db/connect.server";
import { createAppServer } from "../../server/app";
import { TEST_API_KEY, TEST_API_SECRET } from "./shopify";

const ROOT = path.resolve(__dirname, "../..");
const BUILD = path.join(ROOT, "build/server/index.js");

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
  globalThis.__appDatabase = db; // the build's db.server.ts picks it up instead of opening its own
  const build = await import(/* @vite-ignore */ pathToFileURL(BUILD).href);
  app.use(createAppServer({ build, clientDir: path.join(ROOT, "build/client"), logger: options.logger }));
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function newestSourceTime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(full));
    else if (!/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function buildIsFresh() {
  if (!existsSync(BUILD)) return false;
  const sources = Math.max(newestSourceTime(path.join(ROOT, "app")), statSync(path.join(ROOT, "vite.config.ts")).mtimeMs);
  return statSync(BUILD).mtimeMs >= sources;
}

export function ensureBuild() {
  if (buildIsFresh()) return;
  const lock = path.join(ROOT, "node_modules/.cache/app-build.lock");
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock); // atomic: only one test file builds
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      if (buildIsFresh()) return;
    }
  }
  try {
    if (!buildIsFresh()) {
      execFileSync(path.join(ROOT, "node_modules/.bin/remix"), ["vite:build"], {
        cwd: ROOT,
        stdio: "pipe",
        env: { ...process.env, NODE_ENV: "production" },
      });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
