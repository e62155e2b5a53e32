// Every page the app renders has a document title (WCAG 2.4.2), from its route's `meta`: checked over the route
// list of the app's production build (the routes Remix serves, from app/routes.ts), so a page added without a
// `meta` title fails here, whether or not a browser test opens it. Layout routes (with child routes) render no page
// of their own and give no title: a page that forgets its own would otherwise inherit the layout's.
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuild, SERVER_BUILD } from "../../dev/build";

interface RouteEntry {
  id: string;
  parentId?: string;
  module: { default?: unknown; meta?: (args: Record<string, unknown>) => unknown };
}

/** The page routes (a component, no child routes) whose `meta` gives no non-empty title, by id. */
function pagesWithoutTitle(routes: Record<string, RouteEntry>): string[] {
  const parents = new Set(Object.values(routes).map((r) => r.parentId));
  return Object.values(routes)
    .filter((r) => typeof r.module.default === "function" && !parents.has(r.id))
    .filter((r) => {
      // As Remix calls it when the loader failed (no data): the page's error state needs its title too.
      const tags = r.module.meta?.({
        data: undefined,
        params: {},
        location: { pathname: "/", search: "", hash: "" },
        matches: [],
        error: undefined,
      });
      return !(Array.isArray(tags) && tags.some((t) => typeof t?.title === "string" && t.title.trim() !== ""));
    })
    .map((r) => r.id)
    .sort();
}

const page = (id: string, module: RouteEntry["module"], parentId = "root"): [string, RouteEntry] => [
  id,
  { id, parentId, module },
];
const Component = () => null;

describe("page titles", () => {
  let routes: Record<string, RouteEntry>;

  beforeAll(async () => {
    ensureBuild();
    routes = (
      (await import(/* @vite-ignore */ pathToFileURL(SERVER_BUILD).href)) as { routes: Record<string, RouteEntry> }
    ).routes;
  }, 240_000);

  it("every page route of the app has a title in its meta", () => {
    const pages = Object.values(routes).filter((r) => typeof r.module.default === "function");
    expect(pages.length).toBeGreaterThanOrEqual(9); // the admin's six pages, login, the connect callback, the layouts
    expect(pagesWithoutTitle(routes)).toEqual([]);
    const title = (id: string) => (routes[id].module.meta?.({ data: undefined }) as { title: string }[])[0].title;
    expect(title("routes/app.log._index")).toBe("Sync log · Merchant Integration");
  });

  it("names a page added without a title, or with an empty one; layouts and resource routes are not pages", () => {
    const found = pagesWithoutTitle(
      Object.fromEntries([
        page("root", { default: Component }, undefined),
        page("routes/app", { default: Component }),
        page("routes/app.new-page", { default: Component }, "routes/app"),
        page("routes/app.blank", { default: Component, meta: () => [{ title: " " }] }, "routes/app"),
        page("routes/app.titled", { default: Component, meta: () => [{ title: "Titled" }] }, "routes/app"),
        page("routes/webhooks.x", {}),
      ]),
    );
    expect(found).toEqual(["routes/app.blank", "routes/app.new-page"]);
  });
});
