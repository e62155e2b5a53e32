// The fourth security review's first finding, against the production entry with its default body budget (32 MiB):
// seven webhook requests with Shopify's headers and a declared length (six of 5 MiB, one of 2 MiB) and no body
// are answered 408 at the webhook body deadline; every signed delivery after them must be taken. Before the fix,
// the budget was never given back after a 408, and every delivery was answered 503 until a restart.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startProductionServer, type ProductionServer } from "../helpers/production-server";
import { sendWebhook, shopifyWebhookHeaders } from "../helpers/shopify";
import { shopifyOrder } from "../sync/support";

const DEADLINE_MS = 2_000;
let server: ProductionServer;
beforeAll(async () => {
  server = await startProductionServer({ WEBHOOK_BODY_TIMEOUT_MS: String(DEADLINE_MS), LOG_LEVEL: "warn" });
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

function headerOnly(size: number, i: number): Promise<{ socket: Socket; answer: () => string; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let answer = "";
    let closed = false;
    const headers = shopifyWebhookHeaders({ "Content-Length": String(size), "X-Shopify-Event-Id": `stall-${i}` });
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(
        `POST /webhooks/orders/create HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\r\n")}\r\n\r\n`,
      );
      resolve({ socket, answer: () => answer, closed: () => closed });
    });
    socket.on("data", (data) => (answer += data.toString("latin1")));
    socket.on("close", () => (closed = true));
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });
}

it("seven header-only uploads that fill the body budget, then signed webhooks: every one accepted once the 408s are out", async () => {
  const sizes = [...Array.from({ length: 6 }, () => 5_242_880), 2_097_152];
  const stalled = await Promise.all(sizes.map(headerOnly));
  const end = Date.now() + DEADLINE_MS + 3_000;
  while (!stalled.every((s) => s.closed()) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(stalled.map((s) => s.answer().split("\r\n")[0])).toEqual(sizes.map(() => "HTTP/1.1 408 Request Timeout"));
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++)
    statuses.push((await sendWebhook(server.url, "orders/create", shopifyOrder(), { eventId: `after-${i}` })).status);
  expect(statuses).toEqual(statuses.map(() => 200));
}, 60_000);
