// Request bodies in the server, counted before any route (or a library a route calls, such as Shopify's `login()`
// reading the form) sees them:
// - the budget: memory for request bodies, for the whole process, before anything about a request is verified.
//   Each request with a body reserves its declared length (a streamed body: its route's limit) before a byte of it
//   is read, and gives it back when its answer is done or its connection gone. Over the budget the request is
//   answered 503 at once and its body is never held: a flood of large or stalled uploads costs at most the budget;
// - the ceiling: routes under /webhooks/ up to the webhook limit, every other route up to the form limit
//   (app/lib/body-limit.server.ts). A declared Content-Length over the limit is refused at once; a body without one
//   (chunked) is held here as it arrives, at most the limit, and handed on whole when it ends, or refused with 413
//   at the first byte past the limit (the rest is discarded unread, unbuffered); a body to /webhooks/ must arrive
//   within the webhook body deadline;
// - the reader: `holdBody`, the server's one, for the ceiling and for the direct webhook dispatch
//   (./direct-actions.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { BODY_LIMITS, overLimit } from "../app/lib/body-limit.server";

export class BodyBudget {
  private held = 0;
  private refusingSince: number | undefined;

  constructor(readonly limit: number) {}

  /** Bytes reserved now (0 once every request that reserved has ended). */
  get inUse(): number {
    return this.held;
  }

  /** Reserves `bytes`; the returned function gives them back (once, however often called). Null over the budget. */
  reserve(bytes: number): (() => void) | null {
    if (this.held + bytes > this.limit) {
      this.refusingSince ??= Date.now();
      return null;
    }
    this.held += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= bytes;
      // Refusing no longer once the largest delivery fits again.
      if (this.limit - this.held >= BODY_LIMITS.webhook) this.refusingSince = undefined;
    };
  }

  /** How long the budget has been refusing bodies without room for the largest delivery since (ms; 0: not). */
  exhaustedFor(now = Date.now()): number {
    return this.refusingSince === undefined ? 0 : now - this.refusingSince;
  }
}

/**
 * Answers before the body is read, and lets whatever the client still sends go by unbuffered for a moment before
 * closing: closing a socket with unread data resets the connection, and the client may lose the answer.
 */
export function answerUnread(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", Connection: "close", ...headers }).end(text);
  req.resume();
  setTimeout(() => req.socket.destroy(), 2_000).unref();
}

/** Over the budget: the body is not read. Shopify delivers a refused webhook again later. */
export const answerBusy = (req: IncomingMessage, res: ServerResponse) =>
  answerUnread(req, res, 503, "The server is busy: try again shortly.", { "Retry-After": "1" });

/**
 * Drops a request whose body has not all arrived `ms` after this call (webhooks: Shopify sends the body at once,
 * so a slow one is not Shopify). Returns the function that cancels the deadline, for when the body is complete.
 */
export function bodyDeadline(req: IncomingMessage, res: ServerResponse, ms: number): () => void {
  if (req.complete) return () => undefined;
  const timer = setTimeout(() => {
    if (req.complete) return;
    if (!res.headersSent)
      res
        .writeHead(408, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" })
        .end("Request body too slow");
    req.socket.destroy();
  }, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

const bodyLimitFor = (path: string) => (path.startsWith("/webhooks/") ? BODY_LIMITS.webhook : BODY_LIMITS.form);

// 413. A declared length over the limit closes the connection at once (docs/security.md); a refused stream is not
// closed while it still comes (that resets the connection, and the client may lose the answer): what still comes
// is discarded for a moment, unbuffered, then the connection goes (./request-handler.ts).
const refuseTooLarge = (res: ServerResponse, limit: number, close: boolean) =>
  res
    .writeHead(413, { "Content-Type": "text/plain; charset=utf-8", ...(close ? { Connection: "close" } : {}) })
    .end(`Request body too large (limit ${limit} bytes)`);

/** A held body: the chunks that arrived after holdBody was called; `ended` when the stream had already ended then. */
export type Held = { ok: true; chunks: Buffer[]; ended: boolean } | { ok: false; reason: "too_large" | "aborted" };

/**
 * Holds a request's body as the HTTP parser hands it over, before any reader of the stream sees it, counted
 * against `limit` (a declared Content-Length first, and what already waits in the stream's buffer). `done` gets the
 * chunks that arrived after the call once the body is complete (what was buffered before stays in the stream; the
 * caller puts the chunks back with `giveBack`, or keeps them and ends the stream), or "too_large" at the first
 * byte past the limit (what follows is discarded unread), or "aborted" when the body will never be complete: the
 * client went away part way, or the answer was sent first (the webhook body deadline's 408). `done` is called
 * exactly once, whichever way the request ends.
 */
export function holdBody(req: IncomingMessage, res: ServerResponse, limit: number, done: (held: Held) => void): void {
  // Node's parser accepts only digits in a Content-Length, and holds the body to it.
  let total = req.readableLength;
  if (overLimit(req.headers["content-length"], limit) || overLimit(total, limit))
    return done({ ok: false, reason: "too_large" });
  if (req.complete) return done({ ok: true, chunks: [], ended: true });
  const push = req.push.bind(req);
  const held: Buffer[] = [];
  let settled = false;
  const settle = (result: Held) => {
    if (settled) return;
    settled = true;
    done(result);
  };
  req.push = (chunk: Buffer | null) => {
    if (settled) return true; // refused: discarded unread
    if (chunk === null) {
      req.push = push;
      settle({ ok: true, chunks: held, ended: false });
      return false;
    }
    total += chunk.length;
    if (overLimit(total, limit)) {
      held.length = 0;
      settle({ ok: false, reason: "too_large" });
      return true;
    }
    held.push(chunk);
    return true;
  };
  // Either may be the only one to come: once a response has finished (a 408 at the body deadline), Node no longer
  // closes its request when the socket goes; before that, a client gone part way closes both.
  const aborted = () => {
    if (!req.complete) settle({ ok: false, reason: "aborted" });
  };
  req.once("close", aborted);
  res.once("close", aborted);
}

/** Hands a held body back to the stream, and ends it, for the reader after us. */
export function giveBack(req: IncomingMessage, held: Extract<Held, { ok: true }>): void {
  for (const chunk of held.chunks) req.push(chunk);
  if (!held.ended) req.push(null);
}

export function bodyCeiling(options: { budget: BodyBudget; webhookBodyTimeoutMs: number }): RequestHandler {
  return (req, res, next) => {
    const limit = bodyLimitFor(req.path);
    const declared = req.headers["content-length"];
    // Whatever the method: a declared body over its route's limit is never read.
    if (overLimit(declared, limit)) return void refuseTooLarge(res, limit, true);
    if (req.method === "GET" || req.method === "HEAD") return next();
    const streamed = declared === undefined && Boolean(req.headers["transfer-encoding"]);
    const size = streamed ? limit : Number(declared ?? 0);
    if (size > 0 && !req.complete) {
      const release = options.budget.reserve(size);
      if (!release) return answerBusy(req, res as ServerResponse);
      res.once("close", release);
      if (req.path.startsWith("/webhooks/"))
        res.once("close", bodyDeadline(req, res as ServerResponse, options.webhookBodyTimeoutMs));
    }
    if (!streamed) return next(); // a declared body (Node's parser holds it to its length), or none at all
    // A streamed body is held (and counted) here until it ends, then handed on whole.
    holdBody(req as IncomingMessage, res as ServerResponse, limit, (held) => {
      if (held.ok) return void (giveBack(req as IncomingMessage, held), next());
      if (held.reason === "too_large") refuseTooLarge(res, limit, false);
    });
  };
}
