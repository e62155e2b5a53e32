// Webhook routes are Remix resource routes (an `action`, no loader, no page), but Remix's request pipeline
// (route matching over every route, response compression, the data-request machinery) cost more per delivery
// than verifying and storing it did (measured with --cpu-prof), and so did Express's own request set-up (its
// prototype swap, query parsing, the middleware chain). This dispatches POSTs to those routes straight from Node's
// HTTP server to their action, before Express: the route files stay the single place that says what handles a
// topic, and `remix vite:dev` still serves them the usual way.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerBuild } from "@remix-run/node";
import { BODY_BYTES, BODY_LIMITS, overLimit } from "../app/lib/body-limit.server";
import { webhookHeaderProblem } from "../app/shopify/webhook-headers";
import { answerBusy, answerUnread, bodyDeadline, holdBody, type BodyBudget } from "./bodies";

type Action = NonNullable<ServerBuild["routes"][string]["module"]["action"]>;

/** Paths ("/webhooks/orders/create") of resource routes under /webhooks/ with their action and topic ("orders/create"). */
function webhookActions(build: ServerBuild): Map<string, { action: Action; topic: string }> {
  const actions = new Map<string, { action: Action; topic: string }>();
  for (const route of Object.values(build.routes)) {
    const { path, parentId, module } = route;
    if (parentId !== "root" || !path?.startsWith("webhooks/") || /[:*]/.test(path)) continue;
    if (!module.action || module.loader || module.default) continue;
    // Route files are named after Shopify's topics (webhooks.orders.create.tsx takes orders/create).
    actions.set(`/${path}`, { action: module.action, topic: path.slice("webhooks/".length) });
  }
  return actions;
}

/**
 * The Request a route's action gets, its body already read here (at most the declared length, which was checked
 * against the webhook limit first). The bytes go to the route through BODY_BYTES (readBody takes them), not
 * through a Web stream: that stream and its adapter cost more per delivery than the HMAC did. No abort signal:
 * a webhook action never stops part way for a client that left (the delivery is stored and answered, and a
 * redelivery is recognised), and the signal with its listener cost more than the Request itself.
 */
function toFetchRequest(req: IncomingMessage, bytes: Buffer): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url}`, { method: "POST", headers });
  const body = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Uint8Array<ArrayBuffer>;
  return Object.assign(request, { [BODY_BYTES]: body });
}

/**
 * The whole body of a request with a declared length (holdBody, ./bodies.ts); undefined when it will never be
 * complete (the client went away, or the body deadline answered first). Always settles: the caller gives the body
 * budget back then.
 */
function readDeclared(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const before = req.readableLength > 0 ? (req.read() as Buffer) : null;
    holdBody(req, res, Infinity, (held) => {
      if (!held.ok) return resolve(undefined);
      if (!held.ended) req.push(null); // the stream ends empty: the bytes go to the route through BODY_BYTES
      const chunks = before ? [before, ...held.chunks] : held.chunks;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
  });
}

async function answer(res: ServerResponse, response: unknown): Promise<void> {
  if (!(response instanceof Response)) return void res.writeHead(204).end();
  res.statusCode = response.status;
  response.headers.forEach((value, key) => res.setHeader(key, value));
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}

export interface DirectDispatchOptions {
  /** Memory for request bodies, for the whole process (./bodies.ts). */
  budget: BodyBudget;
  /** A delivery's body must all have arrived this long after its headers (./limits.ts). */
  webhookBodyTimeoutMs: number;
}

/**
 * A handler for Node's HTTP server that takes a POST to a webhooks/* route and returns false for every other
 * request (which then goes through Express and Remix). Before a byte of the body is read, the request must carry
 * Shopify's headers for the route's topic (400 otherwise) and fit the process's body budget (503 otherwise); a
 * delivery with a declared length within the webhook limit is then read here, within the webhook body deadline,
 * and handed to the route's action. A body streamed without a length, or declared over the limit, goes on to the
 * general path's checks and answers.
 */
export function directWebhookDispatch(
  build: ServerBuild,
  options: DirectDispatchOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const actions = webhookActions(build);
  return (req, res) => {
    if (req.method !== "POST") return false;
    const url = req.url ?? "";
    const query = url.indexOf("?");
    const route = actions.get(query < 0 ? url : url.slice(0, query));
    if (!route) return false;
    const problem = webhookHeaderProblem((name) => req.headers[name] as string | undefined, route.topic);
    if (problem) return (answerUnread(req, res, 400, "Bad Request"), true);
    const declared = req.headers["content-length"];
    // Node's parser accepts only digits here, and holds the body to this length. Over the limit: the general path
    // answers 413.
    if (!declared || overLimit(declared, BODY_LIMITS.webhook)) return false;
    const release = options.budget.reserve(Number(declared));
    if (!release) return (answerBusy(req, res), true);
    const inTime = bodyDeadline(req, res, options.webhookBodyTimeoutMs);
    readDeclared(req, res)
      .then(async (bytes) => {
        inTime();
        if (!bytes) return void res.destroy(); // nobody left to answer
        await answer(res, await route.action({ request: toFetchRequest(req, bytes), params: {}, context: {} }));
      })
      .catch((error: unknown) => {
        // A thrown Response is an answer (Shopify's helpers throw 401s); anything else is ours: 500, no detail.
        if (error instanceof Response) return void res.writeHead(error.status).end();
        if (!res.headersSent) res.writeHead(500).end();
      })
      .finally(release);
    return true;
  };
}
