// Webhook routes are Remix resource routes (an `action`, no loader, no page), but Remix's request pipeline
// (route matching over every route, response compression, the data-request machinery) cost more per delivery
// than verifying and storing it did (measured with --cpu-prof). This dispatches POSTs to those routes straight
// to their action, before compression and Remix: the route files stay the single place that says what handles
// a topic, and `remix vite:dev` still serves them the usual way.
import { Readable } from "node:stream";
import type { ServerBuild } from "@remix-run/node";
import type { Request as ExpressRequest, Response as ExpressResponse, RequestHandler } from "express";

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

function toFetchRequest(req: ExpressRequest, res: ExpressResponse, origin: string): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const controller = new AbortController();
  // The client went away before the answer was sent. Listened on the response, not the socket: a kept-alive socket
  // carries many requests, and a listener per request on it would pile up.
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return new Request(new URL(req.originalUrl, origin), {
    method: "POST",
    headers,
    // A small buffer: a body refused part way (413) must not have been pulled into memory ahead of the reader.
    body: Readable.toWeb(req, { strategy: { highWaterMark: 1 } }) as ReadableStream,
    signal: controller.signal,
    duplex: "half",
  } as RequestInit);
}

export function directWebhookActions(build: ServerBuild): RequestHandler {
  const actions = webhookActions(build);
  return (req, res, next) => {
    // Shopify always declares the length of a delivery; a body streamed without one takes Remix's general path.
    const action = req.method === "POST" && req.headers["content-length"] ? actions.get(req.path) : undefined;
    if (!action) return next();
    const request = toFetchRequest(req, res, `http://${req.headers.host ?? "localhost"}`);
    Promise.resolve(action({ request, params: {}, context: {} }))
      .then(async (response) => {
        if (!(response instanceof Response)) return void res.status(204).end();
        res.status(response.status);
        response.headers.forEach((value, key) => res.setHeader(key, value));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((error: unknown) => {
        // A thrown Response is an answer (Shopify's helpers throw 401s); anything else is ours: 500, no detail.
        if (error instanceof Response) return void res.status(error.status).end();
        if (!res.headersSent) res.status(500).end();
      });
  };
}
