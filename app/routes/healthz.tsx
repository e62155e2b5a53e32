import { json } from "@remix-run/node";
import { checkDatabase } from "../db/health.server";

// For load balancers and uptime checks: 200 when the database answers, 503 when it does not.
export const loader = async () => {
  const health = await checkDatabase();
  return json(health, { status: health.ok ? 200 : 503, headers: { "Cache-Control": "no-store" } });
};
