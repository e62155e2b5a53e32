// `npm run demo` options. Everything has a default, so `npm run demo` alone works.
import path from "node:path";
import { DEFAULT_CONFIG, type EmulatorConfig } from "../../emulator/config";
import { DEFAULT_PROXY_PREFIX, parseProxyPrefix } from "../../app/shopify/app-proxy.server";

export interface DemoOptions {
  /** The public port (the stand-in for Shopify); every other port is picked free. */
  port: number;
  dataDir: string;
  reset: boolean;
  /** PostgreSQL instead of the embedded PGlite in the data dir. */
  databaseUrl?: string;
  /** Separate `npm run worker` processes; 0 = the worker runs inside the app. */
  workers: number;
  /** A partial emulator config, deep-merged over the demo's own. */
  emulatorConfig?: string;
  /** The store's app proxy path (prefix + subpath), as a merchant may change it; default /apps/workspace. */
  proxyPath: string;
  /** The admin's language as Shopify gives it (`locale` on the app's URL): "fr", "de", "en"; none = English. */
  locale?: string;
}

export const USAGE = `usage: npm run demo -- [--port N] [--data-dir DIR] [--reset] [--database-url postgresql://…] [--workers N] [--emulator-config FILE] [--proxy-path /PREFIX/SUBPATH] [--locale fr]
  --port N              the public port: admin, storefront and app URL (default 3000); every other port is picked free
  --data-dir DIR        where the demo keeps its database, encryption key and emulator config (default ./data/demo)
  --reset               start fresh: delete the data dir's contents first
  --database-url URL    run on PostgreSQL instead of the embedded PGlite
  --workers N           run the sync in N separate worker processes (needs --database-url)
  --emulator-config F   a partial emulator config (JSON) merged over the demo's own
  --proxy-path P        the store's app proxy path, as a merchant may change it, e.g. /tools/team (default /apps/workspace)
  --locale L            open the admin in this language, as Shopify's admin does for its user: en, fr or de (default en)`;

export class UsageError extends Error {}

export function parseDemoArgs(argv: string[], cwd = process.cwd()): DemoOptions {
  const options: DemoOptions = {
    port: 3000,
    dataDir: path.resolve(cwd, "data/demo"),
    reset: false,
    workers: 0,
    proxyPath: DEFAULT_PROXY_PREFIX,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = () => {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined || v === "") throw new UsageError(`${name} needs a value`);
      return v;
    };
    const count = (max: number) => {
      const v = value();
      if (!/^\d+$/.test(v) || Number(v) > max)
        throw new UsageError(`${name} needs a whole number up to ${max}, got ${v}`);
      return Number(v);
    };
    switch (name) {
      case "--port":
        options.port = count(65535);
        if (options.port === 0) throw new UsageError("--port must be a fixed port (the URLs printed depend on it)");
        break;
      case "--data-dir":
        options.dataDir = path.resolve(cwd, value());
        break;
      case "--reset":
        options.reset = true;
        break;
      case "--database-url": {
        const url = value();
        if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError("--database-url must be a postgresql:// URL");
        options.databaseUrl = url;
        break;
      }
      case "--workers":
        options.workers = count(16);
        break;
      case "--emulator-config":
        options.emulatorConfig = path.resolve(cwd, value());
        break;
      case "--proxy-path": {
        const proxyPath = parseProxyPrefix(value());
        if (!proxyPath)
          throw new UsageError(
            "--proxy-path must be /apps, /a, /community or /tools, then one subpath of letters, digits, - or _",
          );
        options.proxyPath = proxyPath;
        break;
      }
      case "--locale": {
        // The shape of a language tag only: the app itself picks one of its languages, or English.
        const locale = value();
        if (!/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,2}$/.test(locale))
          throw new UsageError("--locale must be a language tag such as fr, de or pt-BR");
        options.locale = locale;
        break;
      }
      default:
        throw new UsageError(`unknown option ${arg}`);
    }
  }
  if (options.workers > 0 && !options.databaseUrl) {
    throw new UsageError(
      "--workers needs --database-url: the embedded PGlite database belongs to one process (the app)",
    );
  }
  return options;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** `override` over `base`: objects merged key by key, anything else (arrays included) replaced. */
export function deepMerge<T>(base: T, override: unknown): T {
  if (!isObject(base) || !isObject(override)) return (override === undefined ? base : override) as T;
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = deepMerge(out[key], value);
  return out as T;
}

/**
 * The emulator's config for a demo whose app is at `appUrl`: the sandbox app with the app's OAuth callback, then
 * the user's partial config over it. The callback stays registered with the first app whatever the file says,
 * or no customer could connect. The emulator validates the result when it starts.
 */
export function emulatorConfig(appUrl: string, override?: unknown): EmulatorConfig {
  const callback = `${appUrl}/connect/callback`;
  const own = { ...DEFAULT_CONFIG, clients: [{ ...DEFAULT_CONFIG.clients[0], redirect_uris: [callback] }] };
  const config = override === undefined ? own : deepMerge(own, override);
  const first = config.clients?.[0];
  if (first && Array.isArray(first.redirect_uris) && !first.redirect_uris.includes(callback))
    first.redirect_uris = [...first.redirect_uris, callback];
  return config;
}
