// UI extensions (admin, customer account): every extensions/*/shopify.extension.toml of type "ui_extension" has
// each targeting module bundled with esbuild the way Shopify's CLI does (Preact's automatic JSX, ESM, browser), so
// `npm run lint` fails on a module that does not build. `bundleUiExtensions(outDir)` is also what tests and the
// demo use to load an extension's bundle. Run directly: `tsx scripts/ui-extensions.ts [outDir]`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { parse } from "smol-toml";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface BundledModule {
  handle: string;
  target: string;
  source: string;
  outfile: string;
}

interface ExtensionToml {
  type?: string;
  extensions?: { type?: string; handle?: string; targeting?: { module?: string; target?: string }[] }[];
}

export async function bundleUiExtensions(outDir: string, root = ROOT): Promise<BundledModule[]> {
  const dir = path.join(root, "extensions");
  const bundled: BundledModule[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const toml = path.join(dir, entry.name, "shopify.extension.toml");
    if (!entry.isDirectory() || !existsSync(toml)) continue;
    const config = parse(readFileSync(toml, "utf8")) as ExtensionToml;
    for (const ext of config.extensions ?? []) {
      if (ext.type !== "ui_extension") continue;
      for (const targeting of ext.targeting ?? []) {
        if (!targeting.module || !targeting.target) throw new Error(`${toml}: a targeting needs module and target`);
        const source = path.resolve(dir, entry.name, targeting.module);
        const outfile = path.join(outDir, ext.handle ?? entry.name, `${targeting.target}.js`);
        await build({
          entryPoints: [source],
          outfile,
          bundle: true,
          format: "esm",
          platform: "browser",
          target: "es2022",
          jsx: "automatic",
          jsxImportSource: "preact",
          logLevel: "warning",
        });
        bundled.push({ handle: ext.handle ?? entry.name, target: targeting.target, source, outfile });
      }
    }
  }
  return bundled;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = path.resolve(process.argv[2] ?? path.join(ROOT, "build/ui-extensions"));
  const modules = await bundleUiExtensions(out);
  for (const m of modules) console.log(`ui-extension ${m.handle} ${m.target}: ${path.relative(ROOT, m.outfile)}`);
}
