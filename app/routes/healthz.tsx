import { checkDatabase } from "../db/health.server";

// For load balancers and uptime checks: 200 when the database answers, 503 when it does not. A resource route
// answers a Response of its own (single fetch: raw objects are for routes with a page).
export const loader = async () => {
  const health = await checkDatabase();
  return Response.json(health, { status: health.ok ? 200 : 503, headers: { "Cache-Control": "no-store" } });
};
