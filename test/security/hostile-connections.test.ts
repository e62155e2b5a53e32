// Clients that never authenticate, against the production entry (`node build/server-main.js`) in a child process:
// the process's memory for request bodies is bounded before any signature is checked, a webhook request without
// Shopify's headers for its route is refused before its body, a stalled webhook upload is dropped within the
// webhook body deadline, a connection that sends nothing is closed, the connection cap holds, and slow headers and
// bodies meet the timeouts as configured (checked every second, not every 30 s). Small limits keep it quick.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "../helpers/production-server";
import { shopifyWebhookHeaders } from "../helpers/shopify";

const MiB = 1024 * 1024;
const LIMITS = {
  BODY_BYTES_IN_FLIGHT: String(16 * MiB),
  WEBHOOK_BODY_TIMEOUT_MS: "3000",
  IDLE_TIMEOUT_MS: "1500",
  HEADERS_TIMEOUT_MS: "2000",
  REQUEST_TIMEOUT_MS: "4000",
  MAX_CONNECTIONS: "100",
};

let server: ProductionServer;
beforeAll(async () => {
  server = await startProductionServer({ ...LIMITS, LOG_LEVEL: "warn" });
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

interface Conn {
  socket: Socket;
  /** What the server sent back so far. */
  answer(): string;
  /** When the server closed it (ms since `open`), or null. */
  closedAt(): number | null;
  opened: number;
}

function open(): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const opened = Date.now();
    let answer = "";
    let closedAt: number | null = null;
    const socket = connect(server.port, "127.0.0.1", () =>
      resolve({ socket, answer: () => answer, closedAt: () => closedAt, opened }),
    );
    socket.on("data", (data) => (answer += data.toString("latin1")));
    socket.on("close", () => (closedAt = Date.now() - opened));
    socket.on("error", () => undefined); // the server closing on us is what some tests want
    socket.once("error", reject);
  });
}

const webhookHead = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\r\n")}\r\n\r\n`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(50);
  return check();
}

describe("webhook requests before their body", () => {
  it.each([
    ["without Shopify's headers", { "X-Shopify-Hmac-Sha256": "" }],
    ["with a malformed HMAC header", { "X-Shopify-Hmac-Sha256": "not base64 at all" }],
    ["with a shop that is not a myshopify domain", { "X-Shopify-Shop-Domain": "evil.example.com" }],
    ["naming another topic than the route's", { "X-Shopify-Topic": "customers/redact" }],
  ])("%s: 400 at once, the body never awaited", async (_label, override) => {
    const framings: Record<string, string>[] = [
      { "Content-Length": String(5 * MiB - 1) },
      { "Transfer-Encoding": "chunked" },
    ];
    for (const framing of framings) {
      const headers = Object.fromEntries(
        Object.entries(shopifyWebhookHeaders({ ...override, ...framing })).filter(([, v]) => v !== ""),
      );
      const conn = await open();
      conn.socket.write(webhookHead("/webhooks/orders/create", headers));
      expect(await until(() => conn.answer().length > 0, 1_500)).toBe(true);
      expect(conn.answer().split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
      conn.socket.destroy();
    }
  });
});

/** `count` deliveries to orders/create, each sending its headers (with `framing`) and `first`, then nothing more. */
async function stalledUploads(into: Conn[], count: number, framing: Record<string, string>, first: Buffer) {
  for (let i = 0; i < count; i++) {
    const conn = await open();
    conn.socket.write(
      webhookHead("/webhooks/orders/create", shopifyWebhookHeaders({ ...framing, "X-Shopify-Event-Id": `stall-${i}` })),
    );
    conn.socket.write(first);
    into.push(conn);
  }
}

describe("stalled uploads", () => {
  it("60 stalled 5 MiB webhook uploads raise memory by no more than the body budget and are dropped within the webhook deadline", async () => {
    const rest = server.rssMiB();
    let peak = rest;
    const sampler = setInterval(() => (peak = Math.max(peak, server.rssMiB())), 20);
    const size = 5 * MiB;
    const body = Buffer.alloc(size - 1, 0x61); // all but the last byte, then nothing more
    const conns: Conn[] = [];
    try {
      await stalledUploads(conns, 60, { "Content-Length": String(size) }, body);
      const sent = Date.now();
      await sleep(1_000); // every upload has been sent and is held (or not) by now
      console.log(`rss at rest ${rest.toFixed(0)} MiB, peak while held ${peak.toFixed(0)} MiB`);
      // The budget (16 MiB), plus a little for what refused uploads pass through while being discarded.
      expect(peak - rest).toBeLessThan(16 + 12);
      // Every one is gone by the deadline (3 s) and a moment for the teardown.
      expect(await until(() => conns.every((c) => c.closedAt() !== null), 3_000 + 1_500 - 1_000)).toBe(true);
      console.log(
        `last stalled upload dropped ${Math.max(...conns.map((c) => c.opened + c.closedAt()!)) - sent} ms after the last was sent`,
      );
      // Only what the budget (16 MiB) holds was taken in: three at a time, each dropped at the deadline (408).
      // The rest were answered 503 and closed at once (a client still sending may see the reset first).
      const held = conns.filter((c) => c.closedAt()! >= 1_000);
      expect(held.length).toBeLessThanOrEqual(Math.floor((16 * MiB) / size));
      for (const c of held) expect(c.answer().split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
      // How many of those 503s arrive before the reset depends on the machine's load: none may say anything else.
      const refused = conns.filter((c) => c.closedAt()! < 1_000);
      expect(refused.length).toBeGreaterThanOrEqual(60 - Math.floor((16 * MiB) / size));
      for (const c of refused)
        expect(c.answer() === "" || c.answer().startsWith("HTTP/1.1 503 "), c.answer().slice(0, 40)).toBe(true);
      expect(refused.filter((c) => c.answer() !== "").length).toBeGreaterThan(0);
    } finally {
      clearInterval(sampler);
      for (const c of conns) c.socket.destroy();
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);
});

describe("stalled chunked uploads", () => {
  it("to a webhook route are held within the body budget too, and dropped within the webhook deadline", async () => {
    const conns: Conn[] = [];
    const chunk = Buffer.alloc(512 * 1024, 0x61);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    try {
      await stalledUploads(conns, 10, { "Transfer-Encoding": "chunked" }, frame); // half a MiB, then nothing more
      // A streamed body reserves its route's whole limit (5 MiB): three fit in 16 MiB, the rest are refused at once.
      expect(await until(() => conns.filter((c) => c.answer().startsWith("HTTP/1.1 503")).length >= 7, 1_500)).toBe(
        true,
      );
      expect(await until(() => conns.every((c) => c.closedAt() !== null), 3_000 + 1_500)).toBe(true);
    } finally {
      for (const c of conns) c.socket.destroy();
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe("connections", () => {
  it("one that never sends a byte is closed after the idle timeout; a client over the cap keeps nobody out once its sockets are closed", async () => {
    const conns = await Promise.all(Array.from({ length: 150 }, () => open()));
    try {
      // One client address: over its share (64 of the 100) refused and closed at once (after half a second for a
      // request to answer 503, and none comes). The rest: closed when idle (1.5 s), checked within a second.
      expect(await until(() => conns.every((c) => c.closedAt() !== null), 1_500 + 2_000)).toBe(true);
      const silentFor = conns.map((c) => c.closedAt()!).sort((a, b) => a - b);
      expect(silentFor.filter((ms) => ms < 1_000).length).toBeGreaterThanOrEqual(150 - 64); // refused
      expect(silentFor.filter((ms) => ms >= 1_400).length).toBeGreaterThanOrEqual(60); // the idle timeout
    } finally {
      for (const c of conns) c.socket.destroy();
    }
    const visitors = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${server.url}/healthz`).then(
          (r) => r.status,
          () => 0,
        ),
      ),
    );
    expect(visitors.every((s) => s === 200)).toBe(true);
  });

  it("slow headers get 408 at the headers timeout, a slow body at the request timeout, as configured", async () => {
    const headersOnly = await open();
    headersOnly.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const slowHeaders = (async () => {
      for (let i = 0; i < 20 && headersOnly.closedAt() === null; i++) {
        headersOnly.socket.write(`X-Slow-${i}: 1\r\n`); // a byte now and then: never idle, never done
        await sleep(300);
      }
    })();
    const slowBody = await open();
    slowBody.socket.write(
      "POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n",
    );
    const trickle = (async () => {
      for (let i = 0; i < 40 && slowBody.closedAt() === null; i++) {
        slowBody.socket.write("a");
        await sleep(250);
      }
    })();
    expect(await until(() => headersOnly.closedAt() !== null && slowBody.closedAt() !== null, 8_000)).toBe(true);
    await Promise.all([slowHeaders, trickle]);
    expect(headersOnly.answer().split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(headersOnly.closedAt()).toBeGreaterThanOrEqual(1_900);
    expect(headersOnly.closedAt()).toBeLessThan(2_000 + 1_500);
    expect(slowBody.answer().split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(slowBody.closedAt()).toBeGreaterThanOrEqual(3_900);
    expect(slowBody.closedAt()).toBeLessThan(4_000 + 1_500);
  }, 20_000);
});
