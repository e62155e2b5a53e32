// Memory for request bodies, for the whole process, before anything about a request is verified. Each request with
// a body reserves its declared length (a streamed body: its route's limit) before a byte of it is read, and gives
// it back when its answer is done or its connection gone. Over the budget the request is answered 503 at once and
// its body is never held: a flood of large or stalled uploads costs at most the budget, whatever their number.
import type { IncomingMessage, ServerResponse } from "node:http";

export class BodyBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  /** Bytes reserved now. */
  get inFlight(): number {
    return this.held;
  }

  /** Reserves `bytes`; the returned function gives them back (once, however often called). Null over the budget. */
  reserve(bytes: number): (() => void) | null {
    if (this.held + bytes > this.limit) return null;
    this.held += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= bytes;
    };
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
