// The web process's HTTP server with the limits of ./limits.ts on its connections: at most `maxConnections` open
// (Node closes any beyond at once, so a client holding many sockets cannot take every file descriptor); a
// connection that sends nothing is closed after `idleTimeoutMs` (Node's own timeouts start at a request's first
// byte, so a silent socket would be kept for ever); headers within `headersTimeoutMs` and the whole request within
// `requestTimeoutMs`, checked every second (Node checks every 30 s by default, so 20 s used to mean up to 50 s).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { ServerLimits } from "./limits";

const CHECK_EVERY_MS = 1_000;

export function createHttpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  limits: ServerLimits,
): Server {
  const server = createServer(
    {
      connectionsCheckingInterval: CHECK_EVERY_MS,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  server.on("connection", (socket) => {
    // bytesRead counts what the HTTP parser took from the socket: zero means the client never sent a byte.
    const idle = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.idleTimeoutMs);
    idle.unref();
    socket.once("close", () => clearTimeout(idle));
  });
  return server;
}
