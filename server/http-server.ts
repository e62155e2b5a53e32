// The web process's HTTP server with the limits of ./limits.ts on its connections: which are served, per client
// address and in all, is ./connections.ts (a refused one is answered 503; Node resets only what comes beyond a
// hard cap above that, so a client holding many sockets cannot take every file descriptor); a connection that
// sends nothing is closed after `idleTimeoutMs` (Node's own timeouts start at a request's first byte, so a silent
// socket would be kept for ever); headers within `headersTimeoutMs` and the whole request within
// `requestTimeoutMs`, checked every second (Node checks every 30 s by default, so 20 s used to mean up to 50 s);
// requests per keep-alive connection and its lifetime bounded (./connections.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { answerBusy } from "./bodies";
import { ConnectionGate } from "./connections";
import { trustedProxyHops, type ServerLimits } from "./limits";

const CHECK_EVERY_MS = 1_000;

export function createHttpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  limits: ServerLimits,
  gate = new ConnectionGate(limits, trustedProxyHops() === 0),
): Server {
  const server = createServer(
    {
      connectionsCheckingInterval: CHECK_EVERY_MS,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
    },
    (req, res) => (gate.serve(req, res) ? handler(req, res) : answerBusy(req, res)),
  );
  // Refused connections live a moment (to be answered 503): past this, Node resets at once.
  server.maxConnections = limits.maxConnections + Math.max(64, Math.ceil(limits.maxConnections / 4));
  server.on("connection", (socket) => {
    gate.admit(socket);
    // bytesRead counts what the HTTP parser took from the socket: zero means the client never sent a byte.
    const idle = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.idleTimeoutMs);
    idle.unref();
    socket.once("close", () => clearTimeout(idle));
  });
  return server;
}
