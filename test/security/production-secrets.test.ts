// `npm start` with NODE_ENV=production and none of the secrets set: the process refuses to start and says which.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureBuild } from "../helpers/app";

const ROOT = path.resolve(__dirname, "../..");

describe("a production start without secrets", () => {
  it("stops before listening, naming SHOPIFY_API_KEY, SHOPIFY_API_SECRET and ENCRYPTION_KEYS", async () => {
    ensureBuild();
    const dataDir = mkdtempSync(path.join(tmpdir(), "harden-prod-"));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      PGLITE_DATA_DIR: path.join(dataDir, "pglite"),
    };
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["server/main.ts"], { cwd: ROOT, env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    rmSync(dataDir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(output).not.toMatch(/listening on/);
    for (const name of ["SHOPIFY_API_KEY", "SHOPIFY_API_SECRET", "ENCRYPTION_KEYS"]) {
      expect(output).toMatch(new RegExp(`${name}: is required with NODE_ENV=production`));
    }
  }, 120_000);
});
