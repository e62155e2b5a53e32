// The operations listener (OPS_PORT, on OPS_HOST): /healthz, /readyz and /metrics on an address of their own, for
// the orchestrator's probes and Prometheus, never behind the public load balancer (docs/operations.md). Node's
// HTTP server alone, no Express or Remix: small, and it keeps answering (not ready) while the process drains.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Operations, OpsAnswer } from "../app/runtime/operations.server";

export interface OperationsAddress {
  port: number;
  host: string;
}

/** Starts listening; resolves with the server and the URL it answers on (port 0 picks a free one). */
export function listenForOperations(
  operations: Operations,
  address: OperationsAddress,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const send = (answer: OpsAnswer) => {
      res.writeHead(answer.status, answer.headers);
      res.end(req.method === "HEAD" ? undefined : answer.body);
    };
    if (req.method !== "GET" && req.method !== "HEAD")
      return void send({ status: 405, headers: { Allow: "GET, HEAD" }, body: "" });
    const path = (req.url ?? "/").split("?")[0];
    const answer =
      path === "/healthz"
        ? Promise.resolve(operations.liveness())
        : path === "/readyz"
          ? operations.readiness()
          : path === "/metrics"
            ? operations.metrics(req.headers.authorization, "private")
            : Promise.resolve({ status: 404, headers: { "Content-Type": "text/plain" }, body: "Not Found\n" });
    answer.then(send, () =>
      send({ status: 500, headers: { "Content-Type": "text/plain" }, body: "Internal Server Error\n" }),
    );
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
