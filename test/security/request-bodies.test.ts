// Hostile request bodies against the production server over real HTTP (raw sockets where a client would
// misbehave): an abandoned body must not take the process down, an oversized one is refused before it is read.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { connect, type Socket } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../helpers/app";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { proxyUrl, shopifyWebhookHeaders, webhookHmac } from "../helpers/shopify";

let db: TestDatabase;
let app: RunningApp;
// The app runs in this process: a rejection it leaves unhandled lands here (in a deployment it stopped the process).
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  db = await createTestDatabase();
  app = await startApp(db);
}, 240_000);
afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  await app?.close();
  await db?.close();
});

function open(): Promise<Socket> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

function head(path: string, headers: Record<string, string>) {
  const lines = Object.entries({ Host: new URL(app.url).host, ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `POST ${path} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`;
}

const webhookHeaders = (extra: Record<string, string>) =>
  shopifyWebhookHeaders({ "X-Shopify-Api-Version": "2026-10", ...extra });

const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

async function healthy() {
  const response = await fetch(`${app.url}/healthz`);
  return response.status;
}

describe("an aborted request", () => {
  it.each([
    ["an order webhook", "/webhooks/orders/create"],
    ["a fulfillment webhook", "/webhooks/fulfillments/create"],
    ["a compliance webhook", "/webhooks/customers/redact"],
  ])("to %s (headers and part of the body, then gone) leaves the server answering", async (_label, path) => {
    const framings: Record<string, string>[] = [{ "Content-Length": "10000" }, { "Transfer-Encoding": "chunked" }];
    for (const framing of framings) {
      const socket = await open();
      socket.write(head(path, webhookHeaders(framing)));
      socket.write(
        "Transfer-Encoding" in framing ? '20\r\n{"id": 1, "line_items": [ {"id": ' : '{"id": 1, "line_items": [',
      );
      await settle(100);
      socket.destroy();
      await settle();
      expect(await healthy()).toBe(200);
    }
    expect(unhandled).toEqual([]);
  });

  it("to a storefront form leaves the server answering", async () => {
    const url = new URL(proxyUrl(app.url, "/connect", { customerId: "42" }));
    const socket = await open();
    socket.write(
      head(url.pathname + url.search, {
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": "5000",
      }),
    );
    socket.write("customer_name=a");
    await settle(100);
    socket.destroy();
    await settle();
    expect(await healthy()).toBe(200);
    expect(unhandled).toEqual([]);
  });
});

/**
 * Streams up to `total` bytes in 64 KiB chunks (never holding more) until the server answers or closes; resolves
 * with the status line it sent and how much was written by then (kernel buffers included).
 */
async function upload(path: string, headers: Record<string, string>, total: number, chunked: boolean) {
  const socket = await open();
  let answer = "";
  let sent = 0;
  const answered = new Promise<void>((resolve) => {
    socket.on("data", (data) => {
      answer += data.toString("latin1");
      resolve();
    });
    socket.on("close", () => resolve());
    socket.on("error", () => resolve()); // the server may close while we still write: that is the point
  });
  socket.write(head(path, headers));
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  void (async () => {
    while (sent < total && !answer && !socket.destroyed) {
      const frame = chunked
        ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])
        : chunk;
      sent += chunk.length;
      if (!socket.write(frame)) await new Promise((resolve) => socket.once("drain", resolve).once("close", resolve));
    }
  })();
  await answered;
  socket.destroy();
  return { status: answer.split("\r\n")[0], sent };
}

describe("a 64 MiB body", () => {
  const SIZE = 64 * 1024 * 1024;

  it.each([
    ["declared in Content-Length", false],
    ["streamed chunked, with no length", true],
  ])("%s gets 413, and memory grows by far less than the body", async (_label, chunked) => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const framing: Record<string, string> = chunked
      ? { "Transfer-Encoding": "chunked" }
      : { "Content-Length": String(SIZE) };
    try {
      const { status, sent } = await upload("/webhooks/orders/create", webhookHeaders(framing), SIZE, chunked);
      expect(status).toBe("HTTP/1.1 413 Payload Too Large");
      expect(sent).toBeLessThan(SIZE / 4); // refused while the client was still sending
    } finally {
      clearInterval(sampler);
    }
    const grewMiB = (peak - before) / 1024 / 1024;
    console.log(`peak rss growth ${grewMiB.toFixed(1)} MiB`);
    // The whole test process's RSS, so other work and late GC add some: half the body is far below what reading
    // it whole costs, and not at the mercy of a busy machine.
    expect(grewMiB).toBeLessThan(32);
    expect(await healthy()).toBe(200);
  });

  it("to a storefront form is refused at the form limit (64 KiB)", async () => {
    const url = new URL(proxyUrl(app.url, "/connect", { customerId: "42" }));
    const { status } = await upload(
      url.pathname + url.search,
      { "Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked" },
      SIZE,
      true,
    );
    expect(status).toBe("HTTP/1.1 413 Payload Too Large");
  });
});

describe("a body without a Content-Length", () => {
  it("to /auth/login, 64 MiB chunked, gets 413 at the form limit, and memory grows by far less than the body", async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const { status, sent } = await upload(
        "/auth/login",
        { "Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked" },
        64 * 1024 * 1024,
        true,
      );
      expect(status).toBe("HTTP/1.1 413 Payload Too Large");
      expect(sent).toBeLessThan(8 * 1024 * 1024);
    } finally {
      clearInterval(sampler);
    }
    expect((peak - before) / 1024 / 1024).toBeLessThan(16);
    expect(await healthy()).toBe(200);
  });

  // Every route file with an action, as its URL: a chunked body one byte past the limit is refused before any
  // route (or a library it calls) reads it, signed in or not.
  const routes = readdirSync(path.resolve("app/routes"))
    .filter((name) =>
      /export (const|async function) action\b/.test(
        readFileSync(
          path.resolve(
            "app/routes",
            statSync(path.resolve("app/routes", name)).isDirectory() ? `${name}/route.tsx` : name,
          ),
          "utf8",
        ),
      ),
    )
    .map(
      (name) =>
        `/${name
          .replace(/\.tsx?$/, "")
          .replace(/\._index$/, "")
          .replace(/\$\w+/g, "x")
          .replace(/\./g, "/")}`,
    );

  it.each(routes.map((route) => [route]))(
    "to %s is refused one byte past its limit, and accepted for counting below it",
    async (route) => {
      const webhook = route.startsWith("/webhooks/");
      const limit = webhook ? 5 * 1024 * 1024 : 64 * 1024;
      // A webhook route reads no body without Shopify's headers for its topic (a 400 before the body).
      const headers = webhook
        ? webhookHeaders({ "X-Shopify-Topic": route.slice("/webhooks/".length), "Transfer-Encoding": "chunked" })
        : { "Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked" };
      const { status } = await upload(route, headers, limit + 64 * 1024, true);
      expect(status).toBe("HTTP/1.1 413 Payload Too Large");
      expect(await healthy()).toBe(200);
    },
  );

  it("within the limit reaches the route whole", async () => {
    const response = await fetch(`${app.url}/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      // A stream: fetch sends it chunked, with no Content-Length.
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode("shop="));
          c.enqueue(new TextEncoder().encode("not a shop"));
          c.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Log in");
  });
});

describe("a body within the limit", () => {
  it("is still verified and accepted (the body is read once, the HMAC checked on those bytes)", async () => {
    const body = '{"id": 820982911946154508, "line_items": []}';
    const response = await fetch(`${app.url}/webhooks/orders/create`, {
      method: "POST",
      headers: webhookHeaders({ "X-Shopify-Hmac-Sha256": webhookHmac(body), "X-Shopify-Event-Id": "e-ok" }),
      body,
    });
    expect(response.status).toBe(200);
    const delivery = await db.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: "e-ok" } });
    expect((delivery.payload as { id: unknown }).id).toBe("820982911946154508"); // 64-bit id kept exact
  });
});
