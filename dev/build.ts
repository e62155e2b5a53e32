// The app's production build, made when a file under app/ (or vite.config.ts) is newer than it. Shared by the
// demo and the test harness; a lock directory keeps parallel starters from building at the same time.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SERVER_BUILD = path.join(ROOT, "build/server/index.js");

function newestSourceTime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(full));
    else if (!/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

export function buildIsFresh(): boolean {
  if (!existsSync(SERVER_BUILD)) return false;
  const sources = Math.max(
    newestSourceTime(path.join(ROOT, "app")),
    statSync(path.join(ROOT, "vite.config.ts")).mtimeMs,
  );
  return statSync(SERVER_BUILD).mtimeMs >= sources;
}

/** Builds unless the build is fresh; `stdio` "inherit" shows Vite's progress (the demo), "pipe" hides it (tests). */
export function ensureBuild(stdio: "inherit" | "pipe" = "pipe"): boolean {
  return buildOnce(buildIsFresh, () =>
    execFileSync(path.join(ROOT, "node_modules/.bin/remix"), ["vite:build"], {
      cwd: ROOT,
      stdio,
      env: { ...process.env, NODE_ENV: "production" },
    }),
  );
}

/** The production entries (server/ bundled with what it uses of app/: `npm run build:server`). */
export const SERVER_ENTRY_BUILD = path.join(ROOT, "build/server-main.js");

function serverEntryIsFresh(): boolean {
  if (!existsSync(SERVER_ENTRY_BUILD)) return false;
  return (
    statSync(SERVER_ENTRY_BUILD).mtimeMs >=
    Math.max(newestSourceTime(path.join(ROOT, "server")), newestSourceTime(path.join(ROOT, "app")))
  );
}

/** The app's build and the production entries (`node build/server-main.js`), each made unless fresh. */
export function ensureServerBuild(): void {
  ensureBuild();
  buildOnce(serverEntryIsFresh, () =>
    execFileSync("npm", ["run", "--silent", "build:server"], { cwd: ROOT, stdio: "pipe" }),
  );
}

/** Runs `build` unless `isFresh`, one starter at a time (a lock directory), re-checking after waiting. */
function buildOnce(isFresh: () => boolean, build: () => unknown): boolean {
  if (isFresh()) return false;
  const lock = path.join(ROOT, "node_modules/.cache/app-build.lock");
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock); // atomic: only one starter builds
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      if (isFresh()) return false;
    }
  }
  try {
    if (isFresh()) return false;
    build();
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
