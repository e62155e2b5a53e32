// Shopify's CLI (@shopify/cli, a devDependency) the way this project runs it:
// - `npm run app:build` (part of `npm run lint`): `shopify app build` offline, without analytics. The CLI checks
//   every toml against its own schemas, bundles the UI extensions within Shopify's limits and runs Theme Check on
//   the theme app extension; any error fails the run.
// - `npm run deploy -- [flags of shopify app deploy]`: `shopify app deploy` with APP_URL set to the application_url
//   of the app's configuration (shopify.app.toml, or shopify.app.<name>.toml with --config <name>). The CLI puts
//   APP_URL into the UI extensions' bundles (`process.env.APP_URL`, as `shopify app dev` does with its tunnel), so
//   the customer account extensions call the app where it runs, with no file edited by hand. A configuration still
//   on the placeholder URL (before `shopify app config link`) is refused.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "smol-toml";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "node_modules/.bin/shopify");
/** The placeholder the repository's shopify.app.toml carries until `shopify app config link` fills in the app. */
const PLACEHOLDER_HOSTS = new Set(["example.com", "localhost", "127.0.0.1"]);

/** The app configuration file `shopify app deploy` would use for these arguments (its --config / -c flag). */
export function configFile(args: string[], root = ROOT): string {
  const i = args.findIndex((a) => a === "--config" || a === "-c" || a.startsWith("--config="));
  const name = i < 0 ? undefined : args[i].startsWith("--config=") ? args[i].slice("--config=".length) : args[i + 1];
  if (!name) return path.join(root, "shopify.app.toml");
  return path.join(root, /^shopify\.app(\.[-\w]+)?\.toml$/.test(name) ? name : `shopify.app.${name}.toml`);
}

/** The app's URL from a configuration file's text: its application_url, https, not the placeholder. */
export function deployAppUrl(toml: string, file = "shopify.app.toml"): string {
  const value = (parse(toml) as { application_url?: unknown }).application_url;
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new Error(`${file}: application_url is not a URL (${JSON.stringify(value)})`);
  }
  if (url.protocol !== "https:") throw new Error(`${file}: application_url must be https (${url})`);
  if (PLACEHOLDER_HOSTS.has(url.hostname)) {
    throw new Error(
      `${file}: application_url is still ${url.origin}; run \`npx shopify app config link\` (docs/real-store.md) first`,
    );
  }
  return url.toString().replace(/\/+$/, "");
}

function run(args: string[], env: Record<string, string>): number {
  const result = spawnSync(CLI, args, {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, SHOPIFY_CLI_NO_ANALYTICS: "1", ...env },
  });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === "build")
    return run(["app", "build", "--path", ROOT, "--skip-dependencies-installation", ...rest], { CI: "1" });
  if (command === "deploy") {
    const file = configFile(rest);
    if (!existsSync(file)) throw new Error(`no app configuration at ${path.relative(ROOT, file)}`);
    const appUrl = deployAppUrl(readFileSync(file, "utf8"), path.relative(ROOT, file));
    console.log(
      `deploy: the UI extensions will call the app at ${appUrl} (application_url of ${path.relative(ROOT, file)})`,
    );
    return run(["app", "deploy", ...rest], { APP_URL: appUrl });
  }
  throw new Error("usage: tsx scripts/shopify-cli.ts build | deploy [flags of shopify app deploy]");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    process.exit(main(process.argv.slice(2)));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
