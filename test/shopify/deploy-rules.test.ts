// Shopify's rules that `shopify app build` does not check offline (Shopify enforces them when `shopify app deploy`
// registers the extensions, and refuses the whole version), held here against the extensions as they ship:
// - one theme app extension per app ("this app already has the maximum number of 1 registration allowed");
// - app block and app embed names of at most 25 characters in every locale ("name is too long (max 25
//   characters)"), at most 30 blocks, and the extension's Liquid within Shopify's 100 KB;
// - a full-page customer account target alone in its extension;
// - each UI extension module using only the API Shopify's published types give its target
//   (dev/ui-extensions/target-api.ts): no navigation.currentEntry outside full pages, no toast in admin blocks.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { parse } from "smol-toml";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/build";
import { findUiExtensions } from "../../dev/ui-extensions/bundle";
import { targetApi, type TargetApi } from "../../dev/ui-extensions/target-api";

const EXTENSIONS = path.join(ROOT, "extensions");
const NAME_LIMIT = 25;
const BLOCK_LIMIT = 30;
const LIQUID_LIMIT_BYTES = 100 * 1024;
const FULL_PAGE_TARGETS = ["customer-account.page.render", "customer-account.order.page.render"];

interface Toml {
  type?: string;
  extensions?: { type?: string; handle?: string; targeting?: { target?: string }[] }[];
}

const extensionDirs = () =>
  readdirSync(EXTENSIONS)
    .map((d) => path.join(EXTENSIONS, d))
    .filter((d) => existsSync(path.join(d, "shopify.extension.toml")));
const tomlOf = (dir: string) => parse(readFileSync(path.join(dir, "shopify.extension.toml"), "utf8")) as Toml;
const isTheme = (toml: Toml) => toml.type === "theme" || (toml.extensions ?? []).some((e) => e.type === "theme");
const themeExtensions = () => extensionDirs().filter((d) => isTheme(tomlOf(d)));
const SCHEMA = /\{%-?\s*schema\s*-?%\}([\s\S]*?)\{%-?\s*endschema\s*-?%\}/;
const lookup = (tree: unknown, key: string) =>
  key
    .split(".")
    .reduce<unknown>(
      (node, part) => (node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined),
      tree,
    );
const files = (dir: string, ext: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir).flatMap((f) =>
        statSync(path.join(dir, f)).isDirectory()
          ? files(path.join(dir, f), ext)
          : f.endsWith(ext)
            ? [path.join(dir, f)]
            : [],
      )
    : [];

describe("Shopify's server-side rules for the theme app extension", () => {
  it("the app has one theme app extension", () => {
    expect(themeExtensions().map((d) => path.relative(ROOT, d))).toHaveLength(1);
  });

  it("every block and embed name is at most 25 characters in every locale", () => {
    const tooLong: string[] = [];
    for (const dir of themeExtensions()) {
      const locales = files(path.join(dir, "locales"), ".schema.json").map((f) => ({
        file: path.basename(f),
        tree: JSON.parse(readFileSync(f, "utf8")),
      }));
      for (const block of files(path.join(dir, "blocks"), ".liquid")) {
        const name =
          (JSON.parse(SCHEMA.exec(readFileSync(block, "utf8"))?.[1] ?? "{}") as { name?: string }).name ?? "";
        const names = name.startsWith("t:")
          ? locales.map((l) => [l.file, lookup(l.tree, name.slice(2))] as const)
          : [["(literal)", name] as const];
        for (const [file, value] of names) {
          if (typeof value !== "string") tooLong.push(`${path.basename(block)}: ${name} missing in ${file}`);
          else if ([...value].length > NAME_LIMIT)
            tooLong.push(`${path.basename(block)} in ${file}: "${value}" (${[...value].length})`);
        }
      }
    }
    expect(tooLong).toEqual([]);
  });

  it("at most 30 blocks, and the Liquid within Shopify's 100 KB", () => {
    for (const dir of themeExtensions()) {
      expect(files(path.join(dir, "blocks"), ".liquid").length).toBeLessThanOrEqual(BLOCK_LIMIT);
      const liquid = [...files(path.join(dir, "blocks"), ".liquid"), ...files(path.join(dir, "snippets"), ".liquid")];
      expect(liquid.reduce((sum, f) => sum + statSync(f).size, 0)).toBeLessThanOrEqual(LIQUID_LIMIT_BYTES);
    }
  });
});

/** `shopify.a` / `shopify.a.b` / `navigation.a` in a module's code (the names, not what they do). */
function apiUses(file: string): { path: string[]; line: number }[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.ES2022,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const uses: { path: string[]; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && !ts.isPropertyAccessExpression(node.parent)) {
      const chain: string[] = [];
      let e: ts.Expression = node;
      while (ts.isPropertyAccessExpression(e) || ts.isNonNullExpression(e)) {
        if (ts.isPropertyAccessExpression(e)) chain.unshift(e.name.text);
        e = e.expression;
      }
      if (ts.isIdentifier(e) && (e.text === "shopify" || e.text === "navigation")) {
        uses.push({ path: [e.text, ...chain], line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
      }
    }
    // `const { x } = shopify` / `= navigation`
    if (
      ts.isVariableDeclaration(node) &&
      ts.isObjectBindingPattern(node.name) &&
      node.initializer &&
      ts.isIdentifier(node.initializer)
    ) {
      const root = node.initializer.text;
      if (root === "shopify" || root === "navigation") {
        for (const el of node.name.elements)
          uses.push({
            path: [root, (el.propertyName ?? el.name).getText(source)],
            line: source.getLineAndCharacterOfPosition(el.getStart()).line + 1,
          });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

/** The extension's own source files a target's module pulls in (what Shopify's CLI bundles from extensions/). */
async function sourcesOf(module: string): Promise<string[]> {
  const result = await build({
    entryPoints: [module],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: "silent",
    platform: "browser",
  });
  return Object.keys(result.metafile!.inputs)
    .map((f) => path.resolve(ROOT, f))
    .filter((f) => f.startsWith(EXTENSIONS + path.sep));
}

function offences(api: TargetApi, file: string): string[] {
  const found: string[] = [];
  for (const use of apiUses(file)) {
    const [root, member, nested] = use.path;
    const where = `${path.relative(ROOT, file)}:${use.line}`;
    const members = root === "shopify" ? api.shopify : { [root]: api.globals[root] };
    if (root === "navigation" && !api.globals.navigation) {
      found.push(`${where}: navigation (no such global for ${api.target})`);
      continue;
    }
    const own = root === "shopify" ? member : root;
    const sub = root === "shopify" ? nested : member;
    if (!own || !(own in members) || !members[own]) found.push(`${where}: ${root}.${member}`);
    else if (sub && members[own].length > 0 && !members[own].includes(sub))
      found.push(`${where}: ${use.path.join(".")}`);
  }
  return found;
}

describe("Shopify's rules for the UI extensions", () => {
  it("a full-page target is alone in its extension", () => {
    for (const dir of extensionDirs()) {
      for (const ext of tomlOf(dir).extensions ?? []) {
        const targets = (ext.targeting ?? []).map((t) => t.target ?? "");
        if (targets.some((t) => FULL_PAGE_TARGETS.includes(t))) expect(targets, ext.handle).toHaveLength(1);
      }
    }
  });

  it("each module uses only the API Shopify's types give its target (of the declared api_version)", async () => {
    const found: string[] = [];
    let checked = 0;
    for (const ext of findUiExtensions()) {
      for (const t of ext.targets) {
        const api = targetApi(t.target, ext.apiVersion);
        for (const file of await sourcesOf(t.module)) {
          found.push(...offences(api, file).map((o) => `${t.target}: ${o}`));
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(3);
    expect(found).toEqual([]);
  }, 60_000);

  it("the check itself: a block reading navigation.currentEntry or an admin block calling toast is caught", () => {
    const block = targetApi("customer-account.profile.block.render", "2026-07");
    const page = targetApi("customer-account.page.render", "2026-07");
    const admin = targetApi("admin.order-details.block.render", "2026-07");
    expect(block.globals.navigation).not.toContain("currentEntry");
    expect(page.globals.navigation).toContain("currentEntry");
    expect(Object.keys(admin.shopify)).not.toContain("toast");
    expect(Object.keys(block.shopify)).toContain("toast");
    const sample = path.join(ROOT, "build", "rules-sample.tsx");
    const write = (code: string) => {
      mkdirSync(path.dirname(sample), { recursive: true });
      writeFileSync(sample, code);
    };
    write("const u = navigation.currentEntry.url; shopify.i18n.translate('x'); navigation.navigate(u);");
    expect(offences(block, sample)).toEqual([`${path.relative(ROOT, sample)}:1: navigation.currentEntry.url`]);
    expect(offences(page, sample)).toEqual([]);
    write("shopify.toast.show('done');\nconst { data } = shopify;");
    expect(offences(admin, sample)).toEqual([`${path.relative(ROOT, sample)}:1: shopify.toast`]);
  }, 60_000);
});
