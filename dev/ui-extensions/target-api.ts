// What Shopify gives each UI extension target, read from Shopify's published type files (@shopify/ui-extensions of
// the extension's api_version) with the TypeScript compiler, not written down by us: the members of the target's
// `Api` (the `shopify` global) with their own members, and the surface's other globals (customer accounts:
// `navigation`) with the members this target gets. A member whose documentation says it is "Only available in
// full-page extensions" is given only to the targets of Shopify's RenderCustomerAccountFullPageExtensionTarget.
// The extension hosts (dev/customer-account, dev/admin, test/helpers/ui-extension.ts) build their `shopify` and
// globals from this, and the deploy rules test (test/shopify/deploy-rules.test.ts) checks each module against it.
// Node only (the compiler); results are cached per package version under node_modules/.cache.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PACKAGE = path.join(ROOT, "node_modules/@shopify/ui-extensions");
const FULL_PAGE_ONLY = /only available in full-page extensions/i;

export interface TargetApi {
  target: string;
  /** The api_version the extension declares, e.g. 2026-07. */
  apiVersion: string;
  /** The @shopify/ui-extensions version the types come from, e.g. 2026.7.4. */
  packageVersion: string;
  /** Members of the `shopify` global; each with the members of its value when that is an object ([] otherwise). */
  shopify: Record<string, string[]>;
  /** The surface's other globals (customer accounts: navigation), with the members this target gets. */
  globals: Record<string, string[]>;
}

/** The installed @shopify/ui-extensions version, which must be the extensions' api_version (2026.7.x ↔ 2026-07). */
export function typesVersion(apiVersion: string): string {
  const version = (JSON.parse(readFileSync(path.join(PACKAGE, "package.json"), "utf8")) as { version: string }).version;
  const [year, month] = version.split(".");
  const expected = `${year}-${month.padStart(2, "0")}`;
  if (expected !== apiVersion) {
    throw new Error(
      `the extensions declare api_version ${apiVersion}, but @shopify/ui-extensions ${version} (${expected}) is installed: keep them the same`,
    );
  }
  return version;
}

const surfaceOf = (target: string) => target.split(".")[0];

const docOf = (symbol: ts.Symbol, checker: ts.TypeChecker) =>
  ts.displayPartsToString(symbol.getDocumentationComment(checker));

function membersOf(type: ts.Type, checker: ts.TypeChecker): ts.Symbol[] {
  const t = checker.getNonNullableType(type);
  if (t.getCallSignatures().length > 0 || !(t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))) return [];
  return checker.getPropertiesOfType(t);
}

/** Derives every target of one surface in one compiler run. */
function deriveSurface(
  surface: string,
  targets: string[],
  apiVersion: string,
  packageVersion: string,
): Record<string, TargetApi> {
  const probePath = path.join(ROOT, "__target_api_probe__.ts");
  const fullPageAlias = surface === "customer-account";
  const probe = [
    ...targets.map(
      (t, i) =>
        `import type { Api as A${i} } from "@shopify/ui-extensions/${t}";\nexport declare const api${i}: A${i};`,
    ),
    fullPageAlias
      ? `import type { RenderCustomerAccountFullPageExtensionTarget as FP } from "@shopify/ui-extensions/customer-account";\nexport declare const fullPage: FP;`
      : "",
  ].join("\n");
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    skipLibCheck: true,
    noEmit: true,
    strict: true,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (path.resolve(f) === probePath ? probe : readFile(f));
  host.fileExists = (f) => path.resolve(f) === probePath || fileExists(f);
  host.getSourceFile = (f, lang, ...rest) =>
    path.resolve(f) === probePath ? ts.createSourceFile(f, probe, lang, true) : getSourceFile(f, lang, ...rest);
  const program = ts.createProgram([probePath], options, host);
  const checker = program.getTypeChecker();
  const probeFile = program.getSourceFile(probePath)!;
  const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(probeFile)!).map((s) => [s.name, s]));
  const typeOf = (name: string) => {
    const symbol = exported.get(name);
    if (!symbol) throw new Error(`no ${name} in the probe`);
    return checker.getTypeOfSymbolAtLocation(symbol, probeFile);
  };

  let fullPageTargets: string[] = [];
  if (fullPageAlias) {
    const union = typeOf("fullPage");
    fullPageTargets = (union.isUnion() ? union.types : [union])
      .filter((t) => t.isStringLiteral())
      .map((t) => (t as ts.StringLiteralType).value);
    if (fullPageTargets.length === 0) throw new Error("RenderCustomerAccountFullPageExtensionTarget has no members");
  }
  const given = (member: ts.Symbol, target: string) =>
    !FULL_PAGE_ONLY.test(docOf(member, checker)) || fullPageTargets.includes(target);

  // The surface's `declare global { const … }` (customer accounts: navigation).
  const globals: { name: string; type: ts.Type }[] = [];
  const globalsFile = program
    .getSourceFiles()
    .find((f) => f.fileName.replace(/\\/g, "/").endsWith(`/surfaces/${surface}/globals.d.ts`));
  for (const statement of globalsFile?.statements ?? []) {
    if (
      !ts.isModuleDeclaration(statement) ||
      statement.name.getText(globalsFile) !== "global" ||
      !statement.body ||
      !ts.isModuleBlock(statement.body)
    )
      continue;
    for (const inner of statement.body.statements) {
      if (!ts.isVariableStatement(inner)) continue;
      for (const decl of inner.declarationList.declarations)
        globals.push({ name: decl.name.getText(globalsFile), type: checker.getTypeAtLocation(decl) });
    }
  }

  const result: Record<string, TargetApi> = {};
  targets.forEach((target, i) => {
    const shopify: Record<string, string[]> = {};
    for (const member of checker.getPropertiesOfType(typeOf(`api${i}`))) {
      if (!given(member, target)) continue;
      const type = checker.getTypeOfSymbolAtLocation(member, probeFile);
      shopify[member.name] = membersOf(type, checker)
        .filter((m) => given(m, target))
        .map((m) => m.name)
        .sort();
    }
    const ownGlobals: Record<string, string[]> = {};
    for (const g of globals)
      ownGlobals[g.name] = membersOf(g.type, checker)
        .filter((m) => given(m, target))
        .map((m) => m.name)
        .sort();
    result[target] = { target, apiVersion, packageVersion, shopify, globals: ownGlobals };
  });
  return result;
}

const memo = new Map<string, TargetApi>();

/** The API Shopify's published types give `target` at `apiVersion` (which must be the installed types' version). */
export function targetApi(target: string, apiVersion: string): TargetApi {
  return targetApis([target], apiVersion)[target];
}

/** Several targets at once (one compiler run per surface, cached on disk per package version). */
export function targetApis(targets: string[], apiVersion: string): Record<string, TargetApi> {
  const packageVersion = typesVersion(apiVersion);
  const cacheFile = path.join(ROOT, "node_modules/.cache/ui-extension-target-apis", `${packageVersion}.json`);
  if (memo.size === 0 && existsSync(cacheFile)) {
    try {
      for (const api of Object.values(JSON.parse(readFileSync(cacheFile, "utf8")) as Record<string, TargetApi>))
        memo.set(api.target, api);
    } catch {
      // a broken cache is derived again
    }
  }
  const missing = [...new Set(targets)].filter((t) => !memo.has(t));
  const bySurface = new Map<string, string[]>();
  for (const t of missing) bySurface.set(surfaceOf(t), [...(bySurface.get(surfaceOf(t)) ?? []), t]);
  for (const [surface, list] of bySurface) {
    for (const api of Object.values(deriveSurface(surface, list, apiVersion, packageVersion)))
      memo.set(api.target, api);
  }
  if (missing.length > 0) {
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    // Test workers may derive at the same time: each writes its own file and renames it into place.
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(memo), null, 1));
    renameSync(tmp, cacheFile);
  }
  return Object.fromEntries(targets.map((t) => [t, memo.get(t)!]));
}
