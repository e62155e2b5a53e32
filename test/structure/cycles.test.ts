// The structure of app/ as its import lines state it: no cycle between its parts (top-level folders and root files)
// nor between its files; nothing imported from outside app/; and the lint table (eslint.config.js LAYERS) allows
// exactly the imports between parts that the code makes, for every part there is.
import { pathToFileURL } from "node:url";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cycles, describeCycle, partGraph, readImports } from "./imports";

const { files, outside, unresolved } = readImports();
const parts = partGraph(files);

describe("imports of app/", () => {
  it("reads every file and resolves every import inside app/", () => {
    expect(files.size).toBeGreaterThan(150);
    expect([...files.keys()]).toEqual(
      expect.arrayContaining([
        "shopify.server.ts",
        "db.server.ts",
        "env.server.ts",
        "entry.server.tsx",
        "root.tsx",
        "routes.ts",
      ]),
    );
    expect(unresolved).toEqual([]);
  });

  it("never leave app/ (no dev/, test/, scripts/, emulator/ or server/ in the shipped app)", () => {
    expect(outside).toEqual([]);
  });

  it("form no cycle between parts of app/ (folders and root files)", () => {
    const next = (part: string) => parts.get(part)?.keys() ?? [];
    const found = cycles(parts.keys(), (part) => [...next(part)]).map((component) => {
      const route = describeCycle(component, (part) => [...next(part)]);
      const hops = route.split(" → ");
      return [route, ...hops.slice(1).map((to, i) => `  ${parts.get(hops[i])!.get(to)}`)].join("\n");
    });
    expect(found, `cycles between parts of app/:\n${found.join("\n")}`).toEqual([]);
  });

  it("form no cycle between files", () => {
    const next = (file: string) => [...(files.get(file) ?? [])];
    const found = cycles(files.keys(), next).map((component) => describeCycle(component, next));
    expect(found, `cycles between files of app/:\n${found.join("\n")}`).toEqual([]);
  });

  it("are exactly the ones the lint table (eslint.config.js LAYERS) allows, for every part of app/", async () => {
    const config = pathToFileURL(path.resolve("eslint.config.js")).href;
    const { LAYERS } = (await import(/* @vite-ignore */ config)) as { LAYERS: Record<string, string[]> };
    const used = Object.fromEntries(
      [...parts].filter(([part]) => part !== "routes.ts").map(([part, edges]) => [part, [...edges.keys()].sort()]),
    );
    const table = Object.fromEntries(Object.entries(LAYERS).map(([part, may]) => [part, [...may].sort()]));
    expect(table, "eslint.config.js LAYERS (received) against the imports app/ makes (expected)").toEqual(used);
    expect(parts.get("routes.ts")?.size ?? 0).toBe(0);
  });
});
