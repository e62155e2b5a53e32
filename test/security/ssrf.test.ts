// Server-side request forgery through the settings: what the merchant may save, and what the server will connect
// to (checked on every connection, so a name that later resolves elsewhere is refused too).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkServiceConnection } from "~/connections/settings-check.server";
import { saveSettings } from "~/connections/settings-store.server";
import { guardedFetch, type AddressPolicy } from "~/service/client.server";
import { guardedLookup } from "~/service/address-policy.server";
import { createTestDatabase, type TestDatabase } from "../helpers/db";

const PRODUCTION: AddressPolicy = { allowLoopback: false };
const OPT_IN: AddressPolicy = { allowLoopback: true };

let db: TestDatabase;
let server: Server;
let port: number;
let received = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  // Stands in for an internal service: counts what reaches it, answers with something that must not be echoed.
  server = createServer((req, res) => {
    received += 1;
    req.resume();
    res
      .writeHead(418, { "Content-Type": "application/json" })
      .end(JSON.stringify({ error: "teapot", message: "INTERNAL-SECRET-42" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db?.close();
});

const form = (url: string) => ({
  environment: "sandbox",
  baseUrl: "https://service.example.com",
  sandboxBaseUrl: url,
  authUrl: "https://auth.example.com",
  clientId: "client",
  clientSecret: "client-secret",
  signingSecret: "signing-secret",
});

async function sandboxError(url: string, policy: AddressPolicy) {
  const result = await saveSettings(db.prisma, `ssrf-${Math.random()}.myshopify.com`, form(url), { policy });
  return result.ok ? null : (result.fieldErrors.sandboxBaseUrl ?? null);
}

describe("saving service URLs in a deployment", () => {
  it.each([
    ["http://169.254.169.254/latest/meta-data", /https/],
    ["https://169.254.169.254", /public address \(169\.254\.169\.254 is link-local\)/],
    ["https://[fe80::1]", /public address/],
    ["https://[::ffff:169.254.169.254]", /public address/],
    ["https://100.100.100.200", /public address/],
    ["https://0.0.0.0", /public address/],
    ["https://10.1.2.3", /public address \(10\.1\.2\.3 is private\)/],
    ["https://192.168.1.10", /public address/],
    ["https://[fd00::1]", /public address/],
    ["https://127.0.0.1", /public address \(127\.0\.0\.1 is loopback\)/],
    ["https://[::1]", /public address/],
    ["https://localhost", /public address \(localhost is loopback\)/],
    ["http://service.example.com", /must start with https/],
    ["https://service.example.com/api?next=http://10.0.0.1", /must not contain a query/],
    ["https://service.example.com/api#@10.0.0.1", /must not contain a fragment/],
    ["https://service.example.com?", /must not contain a query/],
    ["https://user:pass@service.example.com", /user name or password/],
  ])("refuses %s", async (url, message) => {
    expect(await sandboxError(url, PRODUCTION)).toMatch(message);
  });

  it("accepts a public https URL with a path", async () => {
    expect(await sandboxError("https://sandbox.service.example.com/v1", PRODUCTION)).toBeNull();
  });
});

describe("with ALLOW_LOOPBACK_SERVICE_URLS=true (local development, the demo, the tests)", () => {
  it.each(["http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787", "https://127.0.0.1"])(
    "accepts %s",
    async (url) => {
      expect(await sandboxError(url, OPT_IN)).toBeNull();
    },
  );

  it.each([
    "http://169.254.169.254",
    "https://169.254.169.254",
    "https://10.1.2.3",
    "https://100.64.0.1",
    "http://0.0.0.0:8787",
  ])("still refuses %s", async (url) => {
    expect(await sandboxError(url, OPT_IN)).not.toBeNull();
  });
});

describe("when the server connects", () => {
  it("a name that resolves to a refused address is refused on the connection itself (DNS rebinding)", async () => {
    // Public when the settings were saved, loopback at connect time.
    let calls = 0;
    const rebinding = ((
      _host: string,
      _options: unknown,
      callback: (e: null, a: { address: string; family: number }[]) => void,
    ) => {
      calls += 1;
      callback(null, [{ address: calls === 1 ? "93.184.216.34" : "127.0.0.1", family: 4 }]);
    }) as unknown as Parameters<typeof guardedLookup>[1];
    const lookup = guardedLookup(PRODUCTION, rebinding);
    const dial = () =>
      new Promise<{ err: Error | null; address: string }>((resolve) =>
        lookup("service.example.com", { family: 0 }, (err, address) => resolve({ err, address: String(address) })),
      );
    expect(await dial()).toMatchObject({ err: null, address: "93.184.216.34" });
    const second = await dial();
    expect(second.err?.message).toMatch(/127\.0\.0\.1 \(loopback\), which is not allowed/);
  });

  it("a real lookup to loopback (localhost) reaches nothing in a deployment", async () => {
    const before = received;
    const error = await guardedFetch(PRODUCTION)(`http://localhost:${port}/`).catch((e: unknown) => e);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe("ERR_ADDRESS_REFUSED");
    expect(received).toBe(before);
  });

  it("Check connection against stored loopback URLs sends nothing in a deployment and names host and cause", async () => {
    const shop = "stored-loopback.myshopify.com";
    const saved = await saveSettings(
      db.prisma,
      shop,
      { ...form(`http://127.0.0.1:${port}`), authUrl: `http://127.0.0.1:${port}` },
      { policy: OPT_IN },
    );
    expect(saved.ok).toBe(true);
    const before = received;
    const report = await checkServiceConnection(db.prisma, shop, { deps: { fetch: guardedFetch(PRODUCTION) } });
    expect(received).toBe(before);
    expect(report.ok).toBe(false);
    expect(report.lines.map((l) => l.message)).toEqual([
      `could not reach 127.0.0.1:${port} (address not allowed: not a public address)`,
      `could not reach 127.0.0.1:${port}`,
    ]);
  });

  it("an unexpected answer is named by host and status, never by its body", async () => {
    const shop = "unexpected-answer.myshopify.com";
    await saveSettings(
      db.prisma,
      shop,
      { ...form(`http://127.0.0.1:${port}`), authUrl: `http://127.0.0.1:${port}` },
      { policy: OPT_IN },
    );
    const report = await checkServiceConnection(db.prisma, shop, { deps: { fetch: guardedFetch(OPT_IN) } });
    const shown = JSON.stringify(report);
    expect(report.lines[0].message).toBe(`unexpected answer from 127.0.0.1:${port} (HTTP 418, teapot)`);
    expect(shown).not.toContain("INTERNAL-SECRET-42");
  });

  it("redirects are not followed", async () => {
    const target = createServer((_req, res) =>
      res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data" }).end(),
    );
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    try {
      const response = await guardedFetch(OPT_IN)(`http://127.0.0.1:${(target.address() as AddressInfo).port}/`);
      expect(response.status).toBe(302);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });
});
