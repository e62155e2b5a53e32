// Webhook routes are Remix resource routes (an `action`, no loader, no page), but Remix's request pipeline
// (route matching over every route, response compression, the data-request machinery) cost more per delivery
// than verifying and storing it did (measured with --cpu-prof). This dispatches POSTs to those routes straight
// to their action, before compression and Remix: the route files stay the single place that says what handles
// a topic, and `remix vite:dev` still serves them the usual way.
import type { ServerBuild } from "@remix-run/node";
import type { Request as ExpressRequest, Response as ExpressResponse, RequestHandler } from "express";
import { BODY_BYTES } from "../app/lib/body-limit.server";

/** Paths ("/webhooks/orders/create") of resource routes under /webhooks/ with their action. */
function webhookActions(build: ServerBuild): Map<string, NonNullable<ServerBuild["routes"][string]["module"]["action"]>> {
  const actions = new Map<string, NonNullable<ServerBuild["routes"][string]["module"]["action"]>>();
  for (const route of Object.values(build.routes)) {
    const { path, parentId, module } = route;
    if (parentId !== "root" || !path?.startsWith("webhooks/") || /[:*]/.test(path)) continue;
    if (!module.action || module.loader || module.default) continue;
    actions.set(`/${path}`, module.action);
  }
  return actions;
}

/**
 * The Request a route's action gets, its body already read here: the dispatch takes only POSTs with a declared
 * length, which the server checked against the webhook limit before (server/body-ceiling.ts), and Node's parser
 * never hands over more than the declared length, so at most the limit is held. The bytes go to the route through
 * BODY_BYTES (readBody takes them), not through a Web stream: that stream and its adapter cost more per delivery
 * than the HMAC did.
 */
function toFetchRequest(req: ExpressRequest, res: ExpressResponse, origin: string, bytes: Buffer): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const controller = new AbortController();
  // The client went away before the answer was sent. Listened on the response, not the socket: a kept-alive socket
  // carries many requests, and a listener per request on it would pile up.
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const request = new Request(origin + req.originalUrl, { method: "POST", headers, signal: controller.signal });
  const body = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Uint8Array<ArrayBuffer>;
  return Object.assign(request, { [BODY_BYTES]: body });
}

/** The whole body of a request with a declared length; undefined when the client went away part way. */
function readDeclared(req: ExpressRequest): Promise<Buffer | undefined> {
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

export function directWebhookActions(build: ServerBuild): RequestHandler {
  const actions = webhookActions(build);
  return (req, res, next) => {
    // Shopify always declares the length of a delivery; a body streamed without one takes Remix's general path.
    const action = req.method === "POST" && req.headers["content-length"] ? actions.get(req.path) : undefined;
    if (!action) return next();
    readDeclared(req)
      .then(async (bytes) => {
        if (!bytes) return void res.destroy(); // nobody left to answer
        const request = toFetchRequest(req, res, `http://${req.headers.host ?? "localhost"}`, bytes);
        const response = await action({ request, params: {}, context: {} });
        if (!(response instanceof Response)) return void res.status(204).end();
        res.status(response.status);
        response.headers.forEach((value, key) => res.setHeader(key, value));
        res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
      })
      .catch((error: unknown) => {
        // A thrown Response is an answer (Shopify's helpers throw 401s); anything else is ours: 500, no detail.
        if (error instanceof Response) return void res.status(error.status).end();
        if (!res.headersSent) res.status(500).end();
      });
  };
}
