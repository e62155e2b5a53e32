import { toResponse } from "../runtime/operations.server";
import { webOperations } from "../runtime/web.server";

// Liveness, for process managers and orchestrators: 200 while the process answers (the database is /readyz's
// business: a database outage must not get every app process restarted). docs/operations.md.
export const loader = () => {
  const operations = webOperations();
  return operations
    ? toResponse(operations.liveness())
    : new Response('{"alive":true}', { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
};
