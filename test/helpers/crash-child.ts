// A process that serves, then throws from a timer (an uncaught exception), wired like server/main.ts: used by
// test/server-crash.test.ts. Prints what happens, one line each.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exitOnCrash } from "../../server/crash";

const server = http.createServer((_req, res) => res.end("ok"));
exitOnCrash(
  (err) => console.log(`logged ${"message" in err ? err.message : err.value}`),
  async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    console.log("drained");
  },
);
server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
  setTimeout(() => {
    throw new Error("boom");
  }, 50);
});
