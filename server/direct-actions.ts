// Webhook routes are Remix resource routes (an `action`, no loader, no page), but Remix's request pipeline
// (route matching over every route, response compression, the data-request machinery) cost more per delivery
// than verifying and storing it did (measured with --cpu-prof), and so did Express's own request set-up (its
// prototype swap, query parsing, the middleware chain). This dispatches POSTs to those routes straight from Node's
// HTTP server to their action, before Express: the route files stay the single place that says what handles a
// topic, and `remix vite:dev` still serves them the usual way.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerBuild } from "@remix-run/node";
import { BODY_BYTES, BODY_LIMITS } from "../app/lib/body-limit.server";

type Action = NonNullable<ServerBuild["routes"][string]["module"]["action"]>;

/** Paths ("/webhooks/orders/create") of resource routes under /webhooks/ with their action. */
function webhookActions(build: ServerBuild): Map<string, Action> {
  const actions = new Map<string, Action>();
  for (const route of Object.values(build.routes)) {
    const { path, parentId, module } = route;
    if (parentId !== "root" || !path?.startsWith("webhooks/") || /[:*]/.test(path)) continue;
    if (!module.action || module.loader || module.default) continue;
    actions.set(`/${path}`, module.action);
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

/** The whole body of a request with a declared length; undefined when the client went away part way. */
function readDeclared(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
    });
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total)));
    req.once("error", () => resolve(undefined));
    req.once("close", () => {
      if (!req.complete) resolve(undefined);
    });
  });
}

async function answer(res: ServerResponse, response: unknown): Promise<void> {
  if (!(response instanceof Response)) return void res.writeHead(204).end();
  res.statusCode = response.status;
  response.headers.forEach((value, key) => res.setHeader(key, value));
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}

/**
 * A handler for Node's HTTP server that takes a POST with a declared length, within the webhook limit, to a
 * webhooks/* route, and returns false for every other request (which then goes through Express and Remix: a body
 * streamed without a length, or declared over the limit, gets the general path's checks and answers).
 */
export function directWebhookDispatch(build: ServerBuild): (req: IncomingMessage, res: ServerResponse) => boolean {
  const actions = webhookActions(build);
  return (req, res) => {
    if (req.method !== "POST") return false;
    const declared = req.headers["content-length"];
    // Node's parser accepts only digits here, and holds the body to this length.
    if (!declared || Number(declared) > BODY_LIMITS.webhook) return false;
    const url = req.url ?? "";
    const query = url.indexOf("?");
    const action = actions.get(query < 0 ? url : url.slice(0, query));
    if (!action) return false;
    readDeclared(req)
      .then(async (bytes) => {
        if (!bytes) return void res.destroy(); // nobody left to answer
        await answer(res, await action({ request: toFetchRequest(req, bytes), params: {}, context: {} }));
      })
      .catch((error: unknown) => {
        // A thrown Response is an answer (Shopify's helpers throw 401s); anything else is ours: 500, no detail.
        if (error instanceof Response) return void res.writeHead(error.status).end();
        if (!res.headersSent) res.writeHead(500).end();
      });
    return true;
  };
}
