// The "Connect workspace" block of the theme app extension (extensions/storefront): the files Shopify requires, a valid block schema, locale files
// that agree on their keys, and a link to the app proxy page.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAppBlocks, renderAppBlock } from "../../dev/storefront/liquid";

const DIR = path.resolve("extensions/storefront");
const read = (file: string) => readFileSync(path.join(DIR, file), "utf8");

function keys(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

function lookup(obj: unknown, dotted: string): unknown {
  return dotted
    .split(".")
    .reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

describe("theme app extension", () => {
  it("declares a theme extension", () => {
    const toml = read("shopify.extension.toml");
    expect(toml).toMatch(/^type = "theme"$/m);
    expect(toml).toMatch(/^name = ".+"$/m);
  });

  it("has a block with a valid schema whose translation keys all exist", () => {
    const liquid = read("blocks/connect-workspace.liquid");
    const schemaText = /\{% schema %\}([\s\S]*)\{% endschema %\}/.exec(liquid)?.[1];
    expect(schemaText).toBeDefined();
    const schema = JSON.parse(schemaText!);
    expect(schema).toMatchObject({ name: expect.stringMatching(/^t:/), target: "section" });
    const schemaLocale = JSON.parse(read("locales/en.default.schema.json"));
    const tKeys = [...schemaText!.matchAll(/"t:([^"]+)"/g)].map((m) => m[1]);
    expect(tKeys.length).toBeGreaterThan(2);
    for (const key of tKeys) expect(lookup(schemaLocale, key), key).toEqual(expect.any(String));

    const storefrontLocale = JSON.parse(read("locales/en.default.json"));
    for (const m of liquid.matchAll(/'([a-z_.]+)' \| t\b/g))
      expect(lookup(storefrontLocale, m[1]), m[1]).toEqual(expect.any(String));
    // The page's path: the "App proxy path" setting, /apps/workspace unless the merchant changed the proxy's path.
    expect(schema.settings.find((s: { id: string }) => s.id === "proxy_path")).toMatchObject({
      type: "text",
      default: "/apps/workspace",
    });
    expect(liquid).toContain("render 'app-proxy-path', value: block.settings.proxy_path");
  });

  it("links to the app proxy page at the path the setting gives, and to the default for anything not of Shopify's shape", async () => {
    const block = loadAppBlocks().find((b) => b.name === "connect-workspace")!;
    const globals = { routes: { root_url: "/", account_login_url: "/account/login" }, customer: { name: "Ada" } };
    const href = async (proxy_path?: string) =>
      /href="([^"]*)"/.exec(
        await renderAppBlock(block, globals, "b1", proxy_path === undefined ? {} : { proxy_path }),
      )?.[1];
    expect(await href()).toBe("/apps/workspace/connect");
    expect(await href("/tools/team-space")).toBe("/tools/team-space/connect");
    for (const bad of ["//evil.example/x", "/apps/x/y", "javascript:alert(1)", "/other/x", ""])
      expect(await href(bad), bad).toBe("/apps/workspace/connect");
  });

  it("has at least one more locale, with the same keys as the default", () => {
    const files = readdirSync(path.join(DIR, "locales"));
    const others = files.filter((f) => !f.startsWith("en.default"));
    expect(others.filter((f) => f.endsWith(".schema.json")).length).toBeGreaterThanOrEqual(1);
    expect(others.filter((f) => !f.endsWith(".schema.json")).length).toBeGreaterThanOrEqual(1);
    const base = keys(JSON.parse(read("locales/en.default.json"))).sort();
    const baseSchema = keys(JSON.parse(read("locales/en.default.schema.json"))).sort();
    for (const file of others) {
      const k = keys(JSON.parse(read(`locales/${file}`))).sort();
      expect(k, file).toEqual(file.endsWith(".schema.json") ? baseSchema : base);
    }
  });
});
