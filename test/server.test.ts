import http from "node:http";
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { withHarness } from "./helpers/harness";
import { embeddedUrl } from "./helpers/shopify";

describe("production server", () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const h = withHarness({ app: { logger: pino({ level: "info" }, sink) } });

  it("logs each request by path, never its query string (session tokens, OAuth codes, signatures)", async () => {
    const url = await embeddedUrl(h.app.url, "/app");
    const token = new URL(url).searchParams.get("id_token")!;
    const page = await fetch(url, { headers: { "User-Agent": "Mozilla/5.0 Chrome/131" } });
    expect(page.status).toBe(200);
    await fetch(`${h.app.url}/connect/callback?code=secret-code-123&state=secret-state-456`);
    // Each line is written when its response has finished: wait for both (a loaded machine can take a while).
    for (
      let i = 0;
      i < 100 && !(lines.join("").includes('"path":"/app"') && lines.join("").includes('"path":"/connect/callback"'));
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const log = lines.join("");
    expect(log).toContain('"path":"/app"');
    expect(log).toContain('"path":"/connect/callback"');
    expect(log).toContain('"status":200');
    for (const secret of [token, "secret-code-123", "secret-state-456", "id_token"]) expect(log).not.toContain(secret);
  });

  it("takes many webhook deliveries on one kept-alive connection without piling up listeners on its socket", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify({ id: 1 });
    try {
      for (let i = 0; i < 15; i++) {
        // An unsigned delivery: refused (400) by the direct dispatch, on the same socket each time.
        const status = await new Promise<number>((resolve, reject) => {
          const req = http.request(`${h.app.url}/webhooks/orders/create`, {
            method: "POST",
            agent,
            headers: {
              "Content-Type": "application/json",
              "Content-Length": Buffer.byteLength(body),
              "X-Shopify-Topic": "orders/create",
            },
          });
          req.on("response", (res) => (res.resume(), res.on("end", () => resolve(res.statusCode ?? 0))));
          req.on("error", reject);
          req.end(body);
        });
        expect(status).toBe(400);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      agent.destroy();
      process.off("warning", onWarning);
    }
  });

  it("serves hashed assets with a long cache lifetime", async () => {
    const html = await (
      await fetch(await embeddedUrl(h.app.url, "/app"), { headers: { "User-Agent": "Mozilla/5.0 Chrome/131" } })
    ).text();
    const asset = html.match(/\/assets\/[\w.-]+\.js/)?.[0];
    expect(asset).toBeTruthy();
    const response = await fetch(`${h.app.url}${asset}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toContain("immutable");
  });
});
