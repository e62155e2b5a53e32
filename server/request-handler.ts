// The production HTTP server around the Remix build (what remix-serve does, minus its request log: that one
// prints full URLs, and Shopify puts session tokens, OAuth codes and signatures in query strings).
// Shared by `npm start` and the tests, so the tests run the very server a deployment runs.
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import type { Logger } from "pino";
import { bodyCeiling, BodyBudget } from "./bodies";
import { directWebhookDispatch } from "./direct-actions";
import { serverLimits, type ServerLimits } from "./limits";
import { operationsRoute } from "./operations-listener";
import type { Operations } from "../app/runtime/operations.server";

declare module "@remix-run/node" {
  interface AppLoadContext {
    /** The TCP peer of the request (our load balancer, behind one). */
    remoteAddress?: string;
  }
}

export interface AppRequestHandlerOptions {
  build: ServerBuild;
  /** build/client: hashed assets under /assets, public files at the root. */
  clientDir: string;
  logger?: Logger;
  /** Default: from the environment (./limits.ts). */
  limits?: ServerLimits;
  /** Memory for request bodies (./bodies.ts); default: one of `limits.bodyBytesInFlight`. */
  budget?: BodyBudget;
}

/**
 * The request handler for Node's HTTP server (or, in the tests, for an outer Express app): webhook deliveries go
 * straight to their route's action (direct-actions.ts), everything else through Express and Remix.
 */
export function createAppRequestHandler({
  build,
  clientDir,
  logger,
  limits = serverLimits(),
  budget = new BodyBudget(limits.bodyBytesInFlight),
}: AppRequestHandlerOptions) {
  const app = express();
  // One budget for the bodies of every request of this process, webhooks and the rest (./bodies.ts).
  const bodies = {
    budget,
    webhookBodyTimeoutMs: limits.webhookBodyTimeoutMs,
  };
  const direct = directWebhookDispatch(build, bodies);
  // /healthz, /readyz and /metrics of the web process the build started, ahead of Express (probes and scrapes).
  const entry = build.entry.module as { webOperations?: () => Operations | undefined };
  const operations = operationsRoute(() => entry.webOperations?.(), "public");
  app.disable("x-powered-by");
  // A body a handler refused part way (413) is not read into memory, but it is not left unread either: closing a
  // socket with unread data resets the connection, and the client may lose the answer. Whatever is still coming
  // is discarded for a moment (no buffering), then the connection goes.
  app.use((req, res, next) => {
    res.once("finish", () => {
      if (req.complete) return;
      req.resume();
      setTimeout(() => req.socket.destroy(), 2_000).unref();
    });
    next();
  });
  // Every body is counted against its route's limit, whatever the framing, before any handler sees the request
  // (bodies.ts); routes still count what they read.
  app.use(bodyCeiling(bodies));
  app.use(compression());
  app.use("/assets", express.static(path.join(clientDir, "assets"), { immutable: true, maxAge: "1y" }));
  app.use(express.static(clientDir, { maxAge: "1h" }));
  if (logger) {
    app.use((req, res, next) => {
      const started = performance.now();
      res.on("finish", () => {
        // The path only: query strings carry id_token, code, state, hmac and signature.
        logger.info(
          { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(performance.now() - started) },
          "request",
        );
      });
      next();
    });
  }
  // The socket's peer, for the client's address behind TRUSTED_PROXY_HOPS proxies (app/lib/client-address.ts).
  app.all(
    "*",
    createRequestHandler({
      build,
      mode: build.mode,
      getLoadContext: (req) => ({ remoteAddress: req.socket.remoteAddress }),
    }),
  );
  // Whatever a request handler still throws: a plain 500, no stack trace, the error in the log (not the request).
  app.use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    logger?.error(
      { err: err instanceof Error ? { name: err.name, message: err.message } : String(err) },
      "request failed",
    );
    if (res.headersSent) return next(err);
    res.status(500).type("text/plain").send("Internal Server Error");
  });
  return (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    if (!direct(req, res) && !operations(req, res))
      app(req as express.Request, res as express.Response, next as express.NextFunction);
  };
}
