import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable, type EntryContext } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { logger } from "./lib/logger.server";
import { addDocumentResponseHeaders } from "./shopify.server";
import { startDevWebProcess } from "./runtime/web.server";

// The web process's start, called by name by server/main.ts (through the build's entry module) and the tests; its
// health and metrics, which server/request-handler.ts answers ahead of Express and Remix.
export { startWebProcess, webOperations } from "./runtime/web.server";

export const streamTimeout = 5000;

/**
 * What a loader or action threw: through the app's one logger (Remix's default prints it raw to stderr), by the
 * request's path only, never its query string.
 */
export function handleError(error: unknown, { request }: { request: Request }) {
  // An aborted request, or an answer such as a 404 for an unknown path (the request log has its status): no error.
  if (request.signal.aborted || (isRouteErrorResponse(error) && error.status < 500)) return;
  logger("app").error(
    {
      err: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      path: new URL(request.url).pathname,
    },
    "request failed",
  );
}

startDevWebProcess(); // remix vite:dev only (it has no main): a no-op in every other process

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  addDocumentResponseHeaders(request, responseHeaders);
  const userAgent = request.headers.get("user-agent");
  const callbackName = isbot(userAgent ?? "") ? "onAllReady" : "onShellReady";

  return new Promise((resolve, reject) => {
    const { pipe, abort } = renderToPipeableStream(<RemixServer context={remixContext} url={request.url} />, {
      [callbackName]: () => {
        const body = new PassThrough();
        const stream = createReadableStreamFromReadable(body);
        responseHeaders.set("Content-Type", "text/html");
        resolve(new Response(stream, { headers: responseHeaders, status: responseStatusCode }));
        pipe(body);
      },
      onShellError(error) {
        reject(error);
      },
      onError(error) {
        responseStatusCode = 500;
        logger("app").error({ err: error }, "render failed");
      },
    });
    setTimeout(abort, streamTimeout + 1000);
  });
}
