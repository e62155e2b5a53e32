import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

/**
 * The layers of app/ (README "Layout"): each part of app/ (a folder, or a file at its root) and what it imports, as
 * the code does today and no more. Together they form no cycle (test/structure/cycles.test.ts checks folders and
 * files, and that this table lists exactly the imports app/ makes). Routes, the entry and runtime sit on top, lib,
 * env.server and loopback (the one rule of what a loopback host is) at the bottom; app/shopify.server.ts is Shopify's configuration, for the wiring and the routes only
 * (areas take the library's functions as arguments). A new import between parts, or a new part, gets its line here.
 */
export const LAYERS = {
  loopback: [],
  "env.server": ["loopback"],
  lib: ["env.server"],
  i18n: ["locales"],
  db: ["env.server", "lib"],
  crypto: ["env.server", "lib"],
  service: ["env.server", "lib", "loopback"],
  shopify: ["env.server", "lib"],
  "db.server": ["db"],
  "shopify.server": ["crypto", "db.server", "env.server", "lib", "shopify"],
  sync: ["db", "lib", "service", "shopify"],
  connections: ["crypto", "db", "lib", "loopback", "service", "shopify"],
  privacy: ["connections", "crypto", "db", "lib", "service", "shopify", "sync"],
  handoff: ["connections", "db", "env.server", "lib", "loopback", "service", "shopify"],
  admin: ["connections", "db", "handoff", "i18n", "lib", "privacy", "shopify", "sync"],
  components: ["admin", "i18n"],
  callers: [
    "admin",
    "connections",
    "db.server",
    "env.server",
    "handoff",
    "lib",
    "service",
    "shopify",
    "shopify.server",
    "sync",
  ],
  runtime: [
    "connections",
    "db",
    "db.server",
    "env.server",
    "lib",
    "privacy",
    "service",
    "shopify",
    "shopify.server",
    "sync",
  ],
  routes: [
    "admin",
    "callers",
    "components",
    "connections",
    "db.server",
    "env.server",
    "i18n",
    "lib",
    "privacy",
    "runtime",
    "shopify",
    "shopify.server",
    "sync",
  ],
  "entry.server": ["lib", "runtime", "shopify.server"],
  root: ["i18n"],
};

/** The parts of app/ that stay plain TypeScript: Remix only in routes, the entry, the root and components. */
const PLAIN = [
  "loopback",
  "i18n",
  "env.server",
  "lib",
  "db",
  "crypto",
  "service",
  "sync",
  "connections",
  "privacy",
  "handoff",
  "admin",
  "runtime",
  "db.server",
];

/** Outside app/: the stand-ins, tests, scripts, emulator and process entries, which the shipped app never imports. */
const OUTSIDE = ["dev", "test", "scripts", "emulator", "server"];

function layering() {
  const remix = {
    regex: "^@remix-run/|^@shopify/shopify-app-remix",
    message: "No Remix inside the domain: routes adapt, areas stay plain.",
  };
  const outside = {
    regex: `^(\\.\\./)+(${OUTSIDE.join("|")})(/|$)|^~/\\.\\.(/|$)`,
    message: `app/ may not import ${OUTSIDE.map((d) => `${d}/`).join(", ")}: the shipped app stands alone.`,
  };
  const isRootFile = (part) => part.includes(".") || part === "root";
  const parts = [...Object.keys(LAYERS), "routes.ts"];
  // An import specifier reaching `target` (a folder, or a root file without its extension) from a file at the root
  // of app/ ("./target", "~/target") or inside a folder ("../target", "../../target", "~/target").
  const name = (target) => (target === "routes.ts" ? "routes\\.ts" : target.replace(".", "\\."));
  const reaching = (target, fromRoot) => `^(~/|${fromRoot ? "\\./" : "(\\.\\./)+"})${name(target)}(\\.tsx?)?(/|$)`;
  const files = (part) => (isRootFile(part) ? [`app/${part}.{ts,tsx}`] : [`app/${part}/**/*.{ts,tsx}`]);
  const label = (part) =>
    part === "routes.ts"
      ? "app/routes.ts"
      : isRootFile(part)
        ? `app/${part}.ts${["root", "entry.server"].includes(part) ? "x" : ""}`
        : `app/${part}/`;
  const rule = (part, may) => {
    const forbidden = parts.filter((other) => other !== part && !may.includes(other));
    const patterns = [
      ...forbidden.map((other) => ({
        regex: reaching(other, isRootFile(part)),
        message:
          other === "shopify.server"
            ? `${label(part)} may not import app/shopify.server.ts: it is for the wiring (runtime) and the routes; take the library's function as an argument.`
            : `${label(part)} may not import ${label(other)} (layers: eslint.config.js).`,
      })),
      outside,
      ...(PLAIN.includes(part) ? [remix] : []),
    ];
    return { files: files(part), rules: { "no-restricted-imports": ["error", { patterns }] } };
  };
  return [...Object.entries(LAYERS).map(([part, may]) => rule(part, may)), rule("routes.ts", [])];
}

export default tseslint.config(
  {
    ignores: [
      "build/**",
      "node_modules/**",
      "data/**",
      "test-results/**",
      "extensions/**/assets/**",
      "extensions/*/dist/**",
      ".cache/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  ...layering(),
  // The stand-ins serve scripts/ and test/; nothing runs the other way.
  {
    files: ["dev/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(\\.\\./)+(scripts|test)(/|$)", message: "dev/ may not import scripts/ or test/." }] },
      ],
    },
  },
);
