import { toResponse } from "../runtime/operations.server";
import { webOperations } from "../runtime/web.server";

// Readiness, for load balancers: 200 when migrations are applied, the database answers and (where this process runs
// the sync worker) its heartbeat is fresh; 503 otherwise, and while the process drains. docs/operations.md.
export const loader = async () => {
  const operations = webOperations();
  if (!operations)
    return new Response('{"ready":false}', {
      status: 503,
      headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
    });
  return toResponse(await operations.readiness());
};
