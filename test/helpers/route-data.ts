// Remix single fetch (v3_singleFetch): a route's loader and action data are served at `<path>.data`, encoded with
// turbo-stream (the format Remix's browser code decodes). Tests read them the same way, so they assert on exactly
// what the page receives.
import { decode } from "turbo-stream";

/** `/app/settings?q=1` → `/app/settings.data?q=1&_routes=routes/app.settings` (only that route's loader runs). */
export function dataPath(pathAndQuery: string, routeId: string): string {
  const url = new URL(pathAndQuery, "http://x");
  url.searchParams.set("_routes", routeId);
  return `${url.pathname.replace(/\/$/, "")}.data${url.search}`;
}

/** The decoded value of a `.data` answer: an action's data, or the loader data of the one route asked for. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index freely into what the page receives
export async function readData(res: Response): Promise<any> {
  if (!res.body) throw new Error(`empty single fetch answer (${res.status})`);
  const decoded = await decode(res.body, {
    plugins: [(type: string, ...rest: unknown[]) => ({ value: { [type]: rest } })],
  });
  await decoded.done;
  const value = decoded.value as Record<string, { data?: unknown; error?: unknown }>;
  if ("data" in value || "error" in value) return (value as { data?: unknown }).data ?? value; // an action
  const routes = Object.values(value);
  if (routes.length !== 1) throw new Error(`expected one route's data, got ${Object.keys(value).join(", ")}`);
  return routes[0].data ?? routes[0];
}
