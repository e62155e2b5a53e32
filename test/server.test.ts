import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "./helpers/app";
import { createTestDatabase, type TestDatabase } from "./helpers/db";
import { embeddedUrl, seedOfflineSession } from "./helpers/shopify";

describe("production server", () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  let db: TestDatabase;
  let app: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    await seedOfflineSession(db.prisma);
    app = await startApp(db, {}, { logger: pino({ level: "info" }, sink) });
  }, 240_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it("logs each request by path, never its query string (session tokens, OAuth codes, signatures)", async () => {
    const url = await embeddedUrl(app.url, "/app");
    const token = new URL(url).searchParams.get("id_token")!;
    const page = await fetch(url, { headers: { "User-Agent": "Mozilla/5.0 Chrome/131" } });
    expect(page.status).toBe(200);
    await fetch(`${app.url}/connect/callback?code=secret-code-123&state=secret-state-456`);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const log = lines.join("");
    expect(log).toContain('"path":"/app"');
    expect(log).toContain('"path":"/connect/callback"');
    expect(log).toContain('"status":200');
    for (const secret of [token, "secret-code-123", "secret-state-456", "id_token"]) expect(log).not.toContain(secret);
  });

  it("serves hashed assets with a long cache lifetime", async () => {
    const html = await (await fetch(await embeddedUrl(app.url, "/app"), { headers: { "User-Agent": "Mozilla/5.0 Chrome/131" } })).text();
    const asset = html.match(/\/assets\/[\w.-]+\.js/)?.[0];
    expect(asset).toBeTruthy();
    const response = await fetch(`${app.url}${asset}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toContain("immutable");
  });
});
