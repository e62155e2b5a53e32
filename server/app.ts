// The production HTTP server around the Remix build (what remix-serve does, minus its request log: that one
// prints full URLs, and Shopify puts session tokens, OAuth codes and signatures in query strings).
// Shared by `npm start` and the tests, so the tests run the very server a deployment runs.
import path from "node:path";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import type { Logger } from "pino";
import { directWebhookActions } from "./direct-actions";

export interface AppServerOptions {
  build: ServerBuild;
  /** build/client: hashed assets under /assets, public files at the root. */
  clientDir: string;
  logger?: Logger;
}

export function createAppServer({ build, clientDir, logger }: AppServerOptions) {
  const app = express();
  app.disable("x-powered-by");
  app.use(directWebhookActions(build));
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
  app.all("*", createRequestHandler({ build, mode: build.mode }));
  return app;
}
