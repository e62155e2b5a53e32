// The process's memory budget for request bodies (server/bodies.ts) is given back on every way a request can end:
// answered, answered before its body was read, dropped at the webhook body deadline (408), the client gone part
// way, the socket destroyed by a handler, a handler error. Both readers are exercised, the direct webhook dispatch
// (server/direct-actions.ts) and the ceiling in front of Express (every other route), on Node's own HTTP server
// with a route table of the build's shape; after each ending the whole budget must be free again.
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { ServerBuild } from "@remix-run/node";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BodyBudget, bodyCeiling } from "../../server/bodies";
import { directWebhookDispatch } from "../../server/direct-actions";
import { shopifyWebhookHeaders } from "../helpers/shopify";

const MiB = 1024 * 1024;
const DEADLINE_MS = 400;
const budget = new BodyBudget(8 * MiB);

/** The webhook route's action, told by a header what to do once it has the body. */
async function webhookAction({ request }: { request: Request }): Promise<Response> {
  const mode = request.headers.get("x-test-ending");
  if (mode === "throw") throw new Error("boom");
  if (mode === "throw-response") throw new Response(null, { status: 401 });
  return new Response("ok", { status: 200 });
}

const build = {
  routes: {
    "routes/webhooks.orders.create": {
      id: "routes/webhooks.orders.create",
      path: "webhooks/orders/create",
      parentId: "root",
      module: { action: webhookAction },
    },
  },
} as unknown as ServerBuild;

let server: Server;
let port: number;

beforeAll(async () => {
  const options = { budget, webhookBodyTimeoutMs: DEADLINE_MS };
  const direct = directWebhookDispatch(build, options);
  const app = express();
  app.use(bodyCeiling(options));
  app.post("/form/:ending", (req, res, next) => {
    const ending = req.params.ending;
    if (ending === "early") return void res.status(400).end("no"); // answered before the body is read
    if (ending === "destroy") return void req.socket.destroy();
    if (ending === "throw") return next(new Error("boom"));
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
    res.status(500).end(),
  );
  server = createServer((req, res) => {
    if (!direct(req, res)) app(req as express.Request, res as express.Response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Conn {
  socket: Socket;
  answer(): string;
  closed(): boolean;
}

function open(): Promise<Conn> {
  return new Promise((resolve, reject) => {
    let answer = "";
    let closed = false;
    const socket = connect(port, "127.0.0.1", () => resolve({ socket, answer: () => answer, closed: () => closed }));
    socket.on("data", (data) => (answer += data.toString("latin1")));
    socket.on("close", () => (closed = true));
    socket.on("error", () => undefined);
    socket.once("error", reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(20);
  return check();
}

const head = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\r\n")}\r\n\r\n`;

type Ending = (conn: Conn) => Promise<void>;

/** Sends `headers` then `body` (or part of it), runs `then`, and waits for the budget to be entirely free again. */
async function endsWithBudgetFree(path: string, headers: Record<string, string>, body: Buffer, then: Ending) {
  expect(budget.inUse).toBe(0);
  const conn = await open();
  conn.socket.write(head(path, headers));
  if (body.length > 0) conn.socket.write(body);
  await then(conn);
  // Given back at once when the request has ended, not after some timeout of its own.
  expect(await until(() => budget.inUse === 0, 1_000), `${budget.inUse} bytes still reserved`).toBe(true);
  conn.socket.destroy();
}

const declared = (size: number, extra: Record<string, string> = {}) =>
  shopifyWebhookHeaders({ "Content-Length": String(size), ...extra });
const answered = (status: number) => async (conn: Conn) => {
  expect(await until(() => conn.answer().length > 0, 2_000)).toBe(true);
  expect(conn.answer().split("\r\n")[0]).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
};

describe("the body budget after a webhook delivery (direct dispatch)", () => {
  const body = Buffer.alloc(2 * MiB, 0x61);

  it("answered", () => endsWithBudgetFree("/webhooks/orders/create", declared(body.length), body, answered(200)));

  it("answered by a thrown Response (a bad signature)", () =>
    endsWithBudgetFree(
      "/webhooks/orders/create",
      declared(body.length, { "X-Test-Ending": "throw-response" }),
      body,
      answered(401),
    ));

  it("a handler error", () =>
    endsWithBudgetFree(
      "/webhooks/orders/create",
      declared(body.length, { "X-Test-Ending": "throw" }),
      body,
      answered(500),
    ));

  it("the body deadline, with only the headers sent", () =>
    endsWithBudgetFree("/webhooks/orders/create", declared(5 * MiB), Buffer.alloc(0), async (conn) => {
      expect(await until(conn.closed, DEADLINE_MS + 2_000)).toBe(true);
      expect(conn.answer().split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    }));

  it("the body deadline, with all but the last byte sent", () =>
    endsWithBudgetFree("/webhooks/orders/create", declared(body.length + 1), body, async (conn) => {
      expect(await until(conn.closed, DEADLINE_MS + 2_000)).toBe(true);
      expect(conn.answer().split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    }));

  it("the client gone part way", () =>
    endsWithBudgetFree("/webhooks/orders/create", declared(5 * MiB), body, async (conn) => {
      await sleep(50);
      conn.socket.destroy();
    }));

  it("seven header-only uploads that use the whole budget, then deliveries are all taken", async () => {
    const stalled = await Promise.all(
      [4 * MiB, 4 * MiB, 1, 1, 1, 1, 1].map(async (size, i) => {
        const conn = await open();
        conn.socket.write(head("/webhooks/orders/create", declared(size, { "X-Shopify-Event-Id": `stall-${i}` })));
        return conn;
      }),
    );
    expect(await until(() => stalled.every((c) => c.closed()), DEADLINE_MS + 2_000)).toBe(true);
    for (const conn of stalled.filter((c) => c.answer() !== ""))
      expect(conn.answer().split("\r\n")[0]).toMatch(/^HTTP\/1.1 (408|503) /);
    expect(await until(() => budget.inUse === 0, 1_000)).toBe(true);
    for (let i = 0; i < 5; i++)
      await endsWithBudgetFree("/webhooks/orders/create", declared(body.length), body, answered(200));
  });
});

describe("the body budget after any other request (the ceiling before Express)", () => {
  const form = (size: number) => ({
    "Content-Type": "application/x-www-form-urlencoded",
    "Content-Length": String(size),
  });
  const body = Buffer.alloc(32 * 1024, 0x61);

  it("answered", () => endsWithBudgetFree("/form/read", form(body.length), body, answered(200)));
  it("answered before its body was read", () =>
    endsWithBudgetFree("/form/early", form(body.length + 10), body, answered(400)));
  it("a handler error", () => endsWithBudgetFree("/form/throw", form(body.length), body, answered(500)));
  it("the socket destroyed by the handler", () =>
    endsWithBudgetFree("/form/destroy", form(body.length), body, async (conn) => {
      expect(await until(conn.closed, 2_000)).toBe(true);
    }));
  it("the client gone part way", () =>
    endsWithBudgetFree("/form/read", form(body.length + 10), body, async (conn) => {
      await sleep(50);
      conn.socket.destroy();
    }));
  it("a streamed body, the client gone part way", () =>
    endsWithBudgetFree(
      "/form/read",
      { "Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked" },
      Buffer.from("10\r\naaaaaaaaaaaaaaaa\r\n"),
      async (conn) => {
        await sleep(50);
        conn.socket.destroy();
      },
    ));
  it("a streamed webhook body dropped at the deadline", () =>
    endsWithBudgetFree(
      "/webhooks/other",
      { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
      Buffer.from("10\r\naaaaaaaaaaaaaaaa\r\n"),
      async (conn) => {
        expect(await until(conn.closed, DEADLINE_MS + 2_000)).toBe(true);
      },
    ));
});
