import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: ["build/**", "node_modules/**", "data/**", "test-results/**", "extensions/**/assets/**", "extensions/*/dist/**", ".cache/**"] },
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
);

/**
 * The layers (README "Layout"), enforced: each folder of app/ may import only the folders listed for it, so the
 * folders form no cycle, nothing imports the process wiring (runtime) or the routes, and the domain areas import
 * no Remix. Routes and runtime sit on top; lib is the leaf. A new folder gets its line here.
 */
function layering() {
  const remix = { regex: "^@remix-run/|^@shopify/shopify-app-remix", message: "No Remix inside the domain: routes adapt, areas stay plain." };
  // folder: the folders of app/ it may import (besides itself and app/env.server.ts)
  const allowed = {
    lib: [],
    db: ["lib"],
    crypto: ["lib"],
    service: ["lib"],
    shopify: ["lib", "db", "crypto", "service"],
    sync: ["lib", "db", "service", "shopify"],
    connections: ["lib", "db", "crypto", "service", "shopify"],
    privacy: ["lib", "db", "crypto", "service", "shopify", "sync", "connections"],
    handoff: ["lib", "db", "crypto", "service", "shopify", "connections"],
    admin: ["lib", "db", "crypto", "service", "shopify", "sync", "connections", "handoff", "privacy"],
    components: ["lib"],
    runtime: ["lib", "db", "crypto", "service", "shopify", "sync", "connections", "handoff", "privacy", "admin"],
  };
  // The app's root modules: the database handle and Shopify's configuration belong to the wiring, routes and adapters.
  const rootFiles = { "db.server": ["db", "shopify", "runtime"], "shopify.server": ["shopify", "runtime"] };
  const folders = [...Object.keys(allowed), "routes"];
  const plainAreas = ["lib", "db", "crypto", "service", "sync", "connections", "privacy", "handoff", "admin", "runtime"];
  // An import specifier reaching `target` from app/<folder>/…: "~/target/…", "../target/…", "../../target/…".
  const reaching = (target) => `^(~/|(\\.\\./)+)${target.replace(".", "\\.")}(/|$)`;
  return Object.entries(allowed).map(([folder, may]) => {
    const patterns = [
      ...folders
        .filter((other) => other !== folder && !may.includes(other))
        .map((other) => ({ regex: reaching(other), message: `app/${folder}/ may not import app/${other}/ (layers: eslint.config.js).` })),
      ...Object.entries(rootFiles)
        .filter(([, users]) => !users.includes(folder))
        .map(([file, users]) => ({ regex: reaching(file), message: `app/${file}.ts is for ${users.join(", ")} and routes: take the client or helper as an argument.` })),
      ...(plainAreas.includes(folder) ? [remix] : []),
    ];
    return { files: [`app/${folder}/**/*.{ts,tsx}`], rules: { "no-restricted-imports": ["error", { patterns }] } };
  });
}
