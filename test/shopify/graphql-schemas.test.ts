// Every GraphQL document the app sends to Shopify (each `#graphql` literal under app/) is valid against Shopify's
// published schema of the API version the app declares (SHOPIFY_API_VERSION, shopify.app.toml) and uses no
// deprecated field or argument. The schemas are Shopify's own introspection files, shipped in its @shopify/dev-mcp
// package (dist/data/<api>_<version>.json.gz), read offline; nothing here is written by hand.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import {
  buildClientSchema,
  getNamedType,
  isLeafType,
  isNonNullType,
  NoDeprecatedCustomRule,
  parse,
  specifiedRules,
  validate,
  type GraphQLSchema,
  type IntrospectionQuery,
} from "graphql";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SHOPIFY_API_VERSION } from "~/shopify/api-version";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCHEMAS = path.join(ROOT, "node_modules/@shopify/dev-mcp/dist/data");
// The modules whose documents go to the Storefront API; every other document goes to the Admin API.
const STOREFRONT_MODULES = ["app/handoff/market-prices.server.ts"];

const schemas = new Map<string, GraphQLSchema>();
function schema(api: "admin" | "storefront-graphql"): GraphQLSchema {
  const key = `${api}_${SHOPIFY_API_VERSION}`;
  if (!schemas.has(key)) {
    const introspection = JSON.parse(
      gunzipSync(readFileSync(path.join(SCHEMAS, `${key}.json.gz`))).toString("utf8"),
    ) as { data: IntrospectionQuery };
    schemas.set(key, buildClientSchema(introspection.data));
  }
  return schemas.get(key)!;
}

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const full = path.join(dir, f);
    return statSync(full).isDirectory()
      ? sources(full)
      : /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f)
        ? [full]
        : [];
  });

/** Each `#graphql` template literal in the app's code, with where it is. */
function documents(): { where: string; module: string; text: string }[] {
  const found: { where: string; module: string; text: string }[] = [];
  for (const file of sources(path.join(ROOT, "app"))) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node) => {
      if (ts.isNoSubstitutionTemplateLiteral(node) && node.text.trimStart().startsWith("#graphql")) {
        const module = path.relative(ROOT, file);
        found.push({
          where: `${module}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`,
          module,
          text: node.text,
        });
      }
      if (ts.isTemplateExpression(node) && node.head.text.trimStart().startsWith("#graphql")) {
        found.push({
          where: path.relative(ROOT, file),
          module: path.relative(ROOT, file),
          text: "# interpolated: documents must be static",
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe(`GraphQL documents against Shopify's published ${SHOPIFY_API_VERSION} schemas`, () => {
  const docs = documents();

  it("finds the app's documents (Admin and Storefront)", () => {
    expect(docs.length).toBeGreaterThanOrEqual(10);
    for (const module of STOREFRONT_MODULES)
      expect(
        docs.some((d) => d.module === module),
        module,
      ).toBe(true);
  });

  it("each is valid, with no deprecated field, argument or enum value", () => {
    const problems: string[] = [];
    for (const doc of docs) {
      const api = STOREFRONT_MODULES.includes(doc.module) ? "storefront-graphql" : "admin";
      let ast;
      try {
        ast = parse(doc.text);
      } catch (error) {
        problems.push(`${doc.where}: ${(error as Error).message}`);
        continue;
      }
      for (const error of validate(schema(api), ast, [...specifiedRules, NoDeprecatedCustomRule]))
        problems.push(`${doc.where} (${api}): ${error.message}`);
    }
    expect(problems).toEqual([]);
  });

  it("the check itself: an unknown or deprecated field is caught", () => {
    const admin = schema("admin");
    expect(validate(admin, parse("{ shop { nameThatIsNot } }")).map((e) => e.message)).toEqual([
      expect.stringContaining("nameThatIsNot"),
    ]);
    // A field Shopify marks deprecated in this version, found in the schema itself.
    const deprecated = Object.values(admin.getQueryType()!.getFields()).find(
      (f) => f.deprecationReason && f.args.every((a) => !isNonNullType(a.type)),
    );
    expect(deprecated).toBeDefined();
    const selection = isLeafType(getNamedType(deprecated!.type)) ? "" : " { __typename }";
    expect(validate(admin, parse(`{ ${deprecated!.name}${selection} }`), [NoDeprecatedCustomRule]).length).toBe(1);
  });
});
