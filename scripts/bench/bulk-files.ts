// The launch's result file, served from its own process (bulk-backfill.ts starts it), so the app process's RSS is
// the app's alone while it reads: the same orders and bulk query as the bench's stand-in, the same shuffle (seeded),
// so the file is the one whose objects the stand-in counted. Prints its port, then serves until killed.
import http from "node:http";
import { Readable } from "node:stream";
import { BulkOperations } from "../../dev/admin-api/bulk";
import { launchOrders } from "./bulk-orders";

const [query, now] = [process.env.BULK_QUERY ?? "", Number(process.env.BULK_NOW)];
const bulk = new BulkOperations({ orders: () => launchOrders(now), webhook: null, shuffleWindow: 64 });
const server = http.createServer((request, response) => {
  const name = new URL(request.url!, "http://x").pathname.split("/").pop()!;
  const id = `gid://shopify/BulkOperation/${name.replace(/\.jsonl$/, "")}`;
  if (!bulk.operations.has(id))
    bulk.operations.set(id, {
      id,
      shop: "bulk-bench.myshopify.com",
      apiVersion: "2026-10",
      query,
      status: "COMPLETED",
      errorCode: null,
      createdAt: new Date(now).toISOString(),
      completedAt: new Date(now).toISOString(),
      objectCount: 0,
      rootObjectCount: 0,
      urlExpiresAt: Number.MAX_SAFE_INTEGER,
      file: {},
    });
  const answer = bulk.fileResponse(name);
  response.writeHead(answer.status);
  if (answer.body) Readable.fromWeb(answer.body as never).pipe(response);
  else response.end();
});
server.listen(0, "127.0.0.1", () => console.log((server.address() as { port: number }).port));
