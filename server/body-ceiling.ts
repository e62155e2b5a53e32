// Every request body is counted at the server, whatever its framing, before any route (or a library a route calls,
// such as Shopify's `login()` reading the form) sees it: routes under /webhooks/ up to the webhook limit, every
// other route up to the form limit (app/lib/body-limit.server.ts). A declared Content-Length over the limit is
// refused at once; a body without one (chunked) is held here as it arrives, at most the limit, and handed on whole
// when it ends, or refused with 413 at the first byte past the limit (the rest is discarded unread, unbuffered).
// Before that, every body takes its share of the process's body budget (./body-budget.ts: its declared length, or
// its route's limit when streamed), 503 when it does not fit, and a body to /webhooks/ must arrive within the
// webhook body deadline.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { BODY_LIMITS } from "../app/lib/body-limit.server";
import { answerBusy, bodyDeadline, type BodyBudget } from "./body-budget";

export const bodyLimitFor = (path: string) => (path.startsWith("/webhooks/") ? BODY_LIMITS.webhook : BODY_LIMITS.form);

const refuse = (res: Parameters<RequestHandler>[1], limit: number) =>
  res.status(413).type("text/plain").send(`Request body too large (limit ${limit} bytes)`);

export function bodyCeiling(options: { budget: BodyBudget; webhookBodyTimeoutMs: number }): RequestHandler {
  return (req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    const limit = bodyLimitFor(req.path);
    const declared = req.headers["content-length"];
    const streamed = declared === undefined && Boolean(req.headers["transfer-encoding"]);
    // Node's parser already holds a declared body to its length.
    if (declared !== undefined && Number(declared) > limit) return void refuse(res, limit).set("Connection", "close");
    const size = streamed ? limit : Number(declared ?? 0);
    if (size > 0 && !req.complete) {
      const release = options.budget.reserve(size);
      if (!release) return answerBusy(req, res as ServerResponse);
      res.once("close", release);
      if (req.path.startsWith("/webhooks/")) res.once("close", bodyDeadline(req, res as ServerResponse, options.webhookBodyTimeoutMs));
    }
    if (!streamed) return next(); // a declared body, or none at all
    // The HTTP parser hands each chunk of the body to `push`: held (and counted) here until the body ends.
    const message = req as IncomingMessage;
    // What arrived before this ran already waits in the stream's buffer: it counts too.
    let total = message.readableLength;
    if (total > limit) return void refuse(res, limit);
    if (message.complete) return next();
    const push = message.push.bind(message);
    const held: Buffer[] = [];
    let refused = false;
    message.push = (chunk: Buffer | null, encoding?: BufferEncoding) => {
      if (refused) return true; // discarded unread
      if (chunk === null) {
        message.push = push;
        for (const c of held) push(c, encoding);
        push(null);
        next();
        return false;
      }
      total += chunk.length;
      if (total > limit) {
        refused = true;
        held.length = 0;
        refuse(res, limit);
        return true;
      }
      held.push(chunk);
      return true;
    };
  };
}
