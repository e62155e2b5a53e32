// `npm run emulator`: prints the sandbox credentials and the `listening on` line; honours --config.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGTERM");
});

/** Starts main.ts with tsx and resolves with everything printed up to the `listening on` line. */
function run(args: string[]): Promise<{ child: ChildProcess; output: string; url: string }> {
  const child = spawn("node_modules/.bin/tsx", ["emulator/main.ts", ...args], { cwd: process.cwd(), stdio: "pipe" });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`no listening line after 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = output.match(/^listening on (http:\/\/127\.0\.0\.1:(\d+))$/m);
      if (m) {
        clearTimeout(timer);
        resolve({ child, output, url: m[1] });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${output}`));
    });
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

describe("emulator/main.ts", () => {
  it("with no config prints the sandbox credentials and URLs, then `listening on`; stops on SIGTERM", async () => {
    const { child, output, url } = await run(["--port", "0"]);
    for (const text of [
      "sandbox-client",
      "sandbox-client-secret",
      "whsec-sandbox-0001",
      "http://localhost:3000/connect/callback",
      "ws-acme",
      "ws-globex",
      `base URL:          ${url}`,
      `sandbox base URL:  ${url}`,
      `auth URL:          ${url}`,
    ]) {
      expect(output).toContain(text);
    }
    expect(output.trimEnd().split("\n").at(-1)).toBe(`listening on ${url}`);
    const res = await fetch(`${url}/_emulator/state`);
    expect(res.status).toBe(200);
    const exit = exited(child);
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  });

  it("honours --config file.json and --port", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emulator-"));
    const file = join(dir, "config.json");
    writeFileSync(
      file,
      JSON.stringify({
        clients: [
          {
            client_id: "cfg-client",
            client_secret: "cfg-secret",
            signing_secrets: ["whsec-cfg-old", "whsec-cfg-new"],
            redirect_uris: ["https://cfg.example/cb"],
          },
        ],
        workspaces: [{ id: "ws-cfg", name: "Config Workspace" }],
        rate_limit: { capacity: 5, leak_per_second: 1 },
        signing_secret_grace_seconds: 10,
      }),
    );
    // Pick a free port the way users do: ask the OS, then pass it.
    const { createServer } = await import("node:net");
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const { child, output, url } = await run(["--port", String(port), "--config", file]);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(output).toContain("cfg-client");
    expect(output).toContain("ws-cfg");
    expect(output).not.toContain("sandbox-client");
    const page = await fetch(
      `${url}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: "cfg-client",
        redirect_uri: "https://cfg.example/cb",
        scope: "orders:write",
        state: "s",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
      })}`,
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Config Workspace");
    const exit = exited(child);
    child.kill("SIGINT");
    expect(await exit).toBe(0);
  });

  it("refuses a bad config with a clear message and exit code 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emulator-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ clients: [], workspaces: [] }));
    await expect(run(["--port", "0", "--config", file])).rejects.toThrow(/exited 1:[\s\S]*invalid emulator config/);
  });
});
