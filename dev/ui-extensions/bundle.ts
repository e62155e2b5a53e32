// UI extensions (customer account, admin, …): every extensions/*/shopify.extension.toml with type "ui_extension",
// each `[[extensions.targeting]] module` bundled with esbuild the way the Shopify CLI bundles it (ESM for the
// browser, JSX through Preact's automatic runtime, one self-contained file per target, `process.env.APP_URL`
// replaced by the app's URL as the CLI replaces it). Tests, the demo and `npm run ui-extensions`
// (scripts/ui-extensions.ts: the size check) call bundleUiExtensions() to run the very code a store would get;
// the stand-in hosts bundle their frame runtime with bundleFrameRuntime().
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { parse } from "smol-toml";
import { ROOT } from "../build";

export const EXTENSIONS_DIR = path.join(ROOT, "extensions");
export const DEFAULT_OUT_DIR = path.join(ROOT, "build/extensions");
/** Shopify refuses a UI extension whose compiled script is over 64 KB. */
export const SIZE_LIMIT_BYTES = 64 * 1024;

export interface UiExtensionTarget {
  target: string;
  /** The source module, absolute. */
  module: string;
}

export interface UiExtension {
  handle: string;
  dir: string;
  apiVersion: string;
  targets: UiExtensionTarget[];
  capabilities: Record<string, unknown>;
}

export interface BundledTarget extends UiExtensionTarget {
  /** The bundle, absolute (<outDir>/<handle>/<target>.js). */
  file: string;
  bytes: number;
}

export interface BundledExtension extends Omit<UiExtension, "targets"> {
  targets: BundledTarget[];
}

export interface BundleOptions {
  /**
   * The app's URL the extension calls (its `network_access`): `process.env.APP_URL` in the bundle, as Shopify's CLI
   * sets it (`shopify app dev`: the tunnel; `npm run deploy`: application_url). Default: left out, as the CLI does
   * when the variable is unset.
   */
  appUrl?: string;
  minify?: boolean;
  /**
   * For tests that run the app in the same process: the browser globals an extension uses (document, window,
   * fetch, navigation, shopify) read from this global object instead, so a DOM library's window can serve the
   * extension without replacing the Node globals (Response, Headers, fetch) the app itself runs on.
   */
  sandbox?: string;
}

const SANDBOXED_GLOBALS = [
  "document",
  "window",
  "self",
  "fetch",
  "navigation",
  "shopify",
  "location",
  "navigator",
  "process",
  // Timers too: an extension's timer must stop with its page, or it would later act through the next page's sandbox.
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
];

/** Every UI extension under extensions/, with its targets, as its shopify.extension.toml declares them. */
export function findUiExtensions(extensionsDir = EXTENSIONS_DIR): UiExtension[] {
  const found: UiExtension[] = [];
  for (const entry of readdirSync(extensionsDir, { withFileTypes: true })) {
    const dir = path.join(extensionsDir, entry.name);
    const tomlPath = path.join(dir, "shopify.extension.toml");
    if (!entry.isDirectory() || !existsSync(tomlPath)) continue;
    const toml = parse(readFileSync(tomlPath, "utf8")) as {
      api_version?: string;
      type?: string;
      extensions?: {
        type?: string;
        handle?: string;
        targeting?: { target?: string; module?: string }[];
        capabilities?: Record<string, unknown>;
      }[];
    };
    for (const ext of toml.extensions ?? []) {
      if (ext.type !== "ui_extension") continue;
      if (!ext.handle || !toml.api_version)
        throw new Error(`${tomlPath}: a ui_extension needs a handle and api_version`);
      const targets = (ext.targeting ?? []).map((t) => {
        if (!t.target || !t.module)
          throw new Error(`${tomlPath}: every [[extensions.targeting]] needs target and module`);
        const module = path.resolve(dir, t.module);
        if (!existsSync(module)) throw new Error(`${tomlPath}: module ${t.module} does not exist`);
        return { target: t.target, module };
      });
      if (targets.length === 0) throw new Error(`${tomlPath}: ${ext.handle} has no [[extensions.targeting]]`);
      found.push({
        handle: ext.handle,
        dir,
        apiVersion: toml.api_version,
        targets,
        capabilities: ext.capabilities ?? {},
      });
    }
  }
  return found.sort((a, b) => a.handle.localeCompare(b.handle));
}

/** Bundles every target of every UI extension into <outDir>/<handle>/<target>.js; returns where they are. */
export async function bundleUiExtensions(
  outDir: string = DEFAULT_OUT_DIR,
  options: BundleOptions = {},
): Promise<BundledExtension[]> {
  const bundled: BundledExtension[] = [];
  for (const ext of findUiExtensions()) {
    const targets: BundledTarget[] = [];
    for (const t of ext.targets) {
      const file = path.join(outDir, ext.handle, `${t.target}.js`);
      mkdirSync(path.dirname(file), { recursive: true });
      await build({
        entryPoints: [t.module],
        outfile: file,
        bundle: true,
        format: "esm",
        platform: "browser",
        target: "es2020",
        jsx: "automatic",
        jsxImportSource: "preact",
        loader: { ".esnext": "ts", ".js": "jsx" },
        mainFields: ["browser", "module", "main"],
        conditions: ["browser", "module", "import"],
        define: {
          "process.env.NODE_ENV": JSON.stringify("production"),
          ...(options.appUrl ? { "process.env.APP_URL": JSON.stringify(options.appUrl.replace(/\/+$/, "")) } : {}),
          ...(options.sandbox
            ? Object.fromEntries(SANDBOXED_GLOBALS.map((g) => [g, `globalThis.${options.sandbox}.${g}`]))
            : {}),
        },
        legalComments: "none",
        minify: options.minify ?? true,
        logLevel: "silent",
      });
      targets.push({ ...t, file, bytes: statSync(file).size });
    }
    bundled.push({ ...ext, targets });
  }
  return bundled;
}

const frameRuntimes = new Map<string, Promise<string>>();
/** A stand-in host's frame runtime (the `shopify` global it gives an extension), bundled for the browser once. */
export function bundleFrameRuntime(entry: string): Promise<string> {
  let runtime = frameRuntimes.get(entry);
  if (!runtime) {
    runtime = build({
      entryPoints: [entry],
      bundle: true,
      format: "esm",
      target: "es2022",
      write: false,
      logLevel: "silent",
    }).then((r) => r.outputFiles[0].text);
    frameRuntimes.set(entry, runtime);
  }
  return runtime;
}
