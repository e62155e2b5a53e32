import type { LoaderFunctionArgs } from "@remix-run/node";
import { toResponse } from "../runtime/operations.server";
import { webOperations } from "../runtime/web.server";

// Prometheus metrics of this process, on the app's own port only with METRICS_TOKEN set and presented as a bearer
// token (404 without one configured, 401 without the right one). docs/operations.md.
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const operations = webOperations();
  if (!operations) return new Response("Not Found\n", { status: 404 });
  return toResponse(await operations.metrics(request.headers.get("authorization"), "public"));
};
