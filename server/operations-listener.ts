// Health and metrics over Node's own HTTP server, with no Express or Remix in the way (a scrape through them cost
// several times the CPU: docs/decisions/0008): /healthz, /readyz and /metrics, answered by the process's operations
// (app/runtime/operations.server.ts). Two uses:
// - the app's own port (server/request-handler.ts): these three paths are taken before Express, as webhook POSTs are;
// - the operations listener (OPS_PORT, on OPS_HOST): the same on an address of their own, for the orchestrator's
//   probes and Prometheus, never behind the public load balancer (docs/operations.md). It keeps answering (not
//   ready) while the process drains. A worker has only this one.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Listener, Operations, OpsAnswer } from "../app/runtime/operations.server";

export interface OperationsAddress {
  port: number;
  host: string;
}

/**
 * A handler for GET/HEAD /healthz, /readyz and /metrics that returns false for every other request, and for these
 * too while `operations()` has nothing (the web process not started yet).
 */
export function operationsRoute(
  operations: () => Operations | undefined,
  listener: Listener,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    if (path !== "/healthz" && path !== "/readyz" && path !== "/metrics") return false;
    const ops = operations();
    if (!ops) return false;
    const answer =
      path === "/healthz"
        ? Promise.resolve(ops.liveness())
        : path === "/readyz"
          ? ops.readiness()
          : ops.metrics(req.headers.authorization, listener);
    const send = (a: OpsAnswer) => {
      res.writeHead(a.status, a.headers);
      res.end(req.method === "HEAD" ? undefined : a.body);
    };
    answer.then(send, () =>
      send({ status: 500, headers: { "Content-Type": "text/plain" }, body: "Internal Server Error\n" }),
    );
    return true;
  };
}

/** Starts the operations listener; resolves with the server and the URL it answers on (port 0 picks a free one). */
export function listenForOperations(
  operations: Operations,
  address: OperationsAddress,
): Promise<{ server: Server; url: string }> {
  const route = operationsRoute(() => operations, "private");
  const server = createServer((req, res) => {
    if (!route(req, res)) res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found\n");
  });
  // A probe or a scrape is one small GET: nothing here waits long for a slow client, and there are few of them.
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  server.maxConnections = 64;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => {
      server.off("error", reject);
      const { port } = server.address() as AddressInfo;
      const host = address.host.includes(":") ? `[${address.host}]` : address.host;
      resolve({ server, url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}` });
    });
  });
}
