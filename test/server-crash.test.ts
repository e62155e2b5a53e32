// After an uncaught exception the process must not carry on serving (Node documents its state as undefined): it
// logs, stops accepting, drains, and exits non-zero so the process manager starts a fresh one.
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("an uncaught exception", () => {
  it("is logged, the server stops accepting and drains, and the process exits with code 1", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "helpers/crash-child.ts")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (exitCode) => resolve(exitCode)));
    expect(out).toContain("logged boom");
    expect(out).toContain("drained");
    expect(out.indexOf("logged boom")).toBeLessThan(out.indexOf("drained"));
    expect(code).toBe(1);
  }, 60_000);
});
