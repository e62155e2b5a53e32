// A production start with none of the secrets set: the process refuses to start and says which. The production
// entries (`npm start`, `npm run start:worker`, `node build/server-*.js`) are production without NODE_ENV too: they
// never fall back to the development defaults (the public built-in Shopify credentials).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureServerBuild } from "../../dev/build";

const ROOT = path.resolve(__dirname, "../..");
const REQUIRED = ["SHOPIFY_API_KEY", "SHOPIFY_API_SECRET", "ENCRYPTION_KEYS"];

/** Runs a command with only `env` (plus PATH), stops it if it is still running after 30 s; its exit code and output. */
async function run(command: string, args: string[], env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "harden-prod-"));
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true, // its own process group: a stop reaches npm's child too
    // NODE_ENV only when the case sets it (the app's typings make it required).
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      HOST: "127.0.0.1",
      PGLITE_DATA_DIR: path.join(dataDir, "pglite"),
      ...env,
    } as unknown as NodeJS.ProcessEnv,
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // A process that started on the development defaults listens: it is stopped, and the test fails on its output.
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGTERM"), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearTimeout(timer);
  rmSync(dataDir, { recursive: true, force: true });
  return { code, output };
}

describe("a production start without secrets", () => {
  beforeAll(() => ensureServerBuild(), 300_000); // build/server-*.js, under the build lock other test files share

  it("stops before listening, naming SHOPIFY_API_KEY, SHOPIFY_API_SECRET and ENCRYPTION_KEYS", async () => {
    const { code, output } = await run(path.join(ROOT, "node_modules/.bin/tsx"), ["server/main.ts"], {
      NODE_ENV: "production",
    });
    expect(code).toBe(1);
    expect(output).not.toMatch(/listening on/);
    for (const name of REQUIRED) expect(output).toMatch(new RegExp(`${name}: is required with NODE_ENV=production`));
  }, 120_000);

  it.each([
    ["npm start", "npm", ["start"]],
    ["node build/server-main.js", process.execPath, ["build/server-main.js"]],
  ])(
    "%s without NODE_ENV is a production start too",
    async (_, command, args) => {
      const { code, output } = await run(command, args, {});
      expect(output).not.toMatch(/listening on/);
      expect(code).not.toBe(0);
      for (const name of REQUIRED) expect(output).toMatch(new RegExp(`${name}: is required with NODE_ENV=production`));
    },
    120_000,
  );

  it("npm run start:worker without NODE_ENV is a production start too", async () => {
    const { code, output } = await run("npm", ["run", "start:worker"], {
      DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
    });
    expect(output).not.toMatch(/ready/);
    expect(code).not.toBe(0);
    for (const name of REQUIRED) expect(output).toMatch(new RegExp(`${name}: is required with NODE_ENV=production`));
  }, 120_000);
});
