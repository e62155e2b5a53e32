// The app's configuration, read from the environment and validated once at start.
// Local runs need no .env: with no DATABASE_URL (the embedded default) every variable has a local default.
// A deployment on PostgreSQL (DATABASE_URL set) must name its Shopify credentials and encryption keys, and so must
// anything run with NODE_ENV=production: the built-in defaults are public, so a production process never runs on
// them (the demo, which runs the production build locally, passes its local values explicitly).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { isLoopbackHost } from "./loopback";

const LOCAL_DEFAULTS = {
  SHOPIFY_API_KEY: "local-dev-api-key",
  SHOPIFY_API_SECRET: "local-dev-api-secret",
  SHOPIFY_APP_URL: "http://localhost:3000",
};

/** SHOP_CUSTOM_DOMAIN: a bare host name, labels of letters, digits and hyphens, at least two of them. */
const CUSTOM_DOMAIN = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

const keyList = z
  .string()
  .regex(/^[A-Za-z0-9_-]+:[A-Za-z0-9+/=_-]+(,[A-Za-z0-9_-]+:[A-Za-z0-9+/=_-]+)*$/, {
    message: 'must be "keyId:base64key[,keyId:base64key…]" (the first is the current key)',
  })
  .refine((s) => s.split(",").every((entry) => Buffer.from(entry.split(":")[1], "base64").length === 32), {
    message: "every key must be 32 bytes, base64-encoded (openssl rand -base64 32)",
  });

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { message: "must be a postgresql:// URL" })
    .optional(),
  PGLITE_DATA_DIR: z.string().default("./data/pglite"),
  SHOPIFY_API_KEY: z.string().min(1),
  SHOPIFY_API_SECRET: z.string().min(1),
  SHOPIFY_APP_URL: z.url({ message: "must be the app's public https URL" }),
  SCOPES: z
    .string()
    .default(
      "read_orders,read_fulfillments,read_customers,read_products,read_themes,write_app_proxy,unauthenticated_read_checkouts,unauthenticated_read_product_listings",
    ),
  SHOP_CUSTOM_DOMAIN: z
    .string()
    .transform((s) => s.toLowerCase())
    .refine((s) => CUSTOM_DOMAIN.test(s), {
      message: 'must be a bare domain such as "shops.example.com" (no scheme, no path)',
    })
    .optional(),
  ENCRYPTION_KEYS: keyList,
  WORKER_IN_PROCESS: z.enum(["true", "false"]).default("true"),
  // The least jobs a worker runs at once; it runs more when the service's rate times its answer time calls for it
  // (app/sync/pace.server.ts), up to WORKER_MAX_CONCURRENCY (memory: a job holds its order) and what its database
  // pool serves.
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  WORKER_MAX_CONCURRENCY: z.coerce.number().int().positive().max(10_000).default(1_000),
  WORKER_POLL_MS: z.coerce.number().int().positive().default(1_000),
  WORKER_POOL_SIZE: z.coerce.number().int().positive().default(5),
  WORKER_LEASE_MS: z.coerce.number().int().positive().optional(),
  // After SIGTERM the web process answers for this long (reporting not ready on /readyz) before it stops accepting
  // connections: a load balancer has that long to see it not ready and send traffic elsewhere (docs/operations.md).
  DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(5_000),
  // Proxies of our own in front of the app (load balancers), each appending to X-Forwarded-For: the client's
  // address is the one the outermost of them saw, never the client-written leftmost entry (docs/security.md).
  // Default 0 (the socket's peer): with a trusted hop and no proxy in front, a client would write its own address.
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  // Continue cart handoffs per minute for one shop, from all its shoppers together (docs/security.md).
  HANDOFF_SHOP_PER_MINUTE: z.coerce.number().int().positive().default(120),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // Prometheus metrics and health for the engineer who runs the app (docs/operations.md). METRICS_ENABLED=false
  // turns the instruments into no-ops (the bench's A/B); METRICS_TOKEN is the bearer token /metrics asks for, or
  // two ("new,old") while rotating it (without one, /metrics is served only on the operations listener);
  // OPS_PORT/OPS_HOST: that private listener (/healthz, /readyz, /metrics), 0 for any free port.
  METRICS_ENABLED: z.enum(["true", "false"]).default("true"),
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x2b\x2d-\x7e]{16,256}(,[\x21-\x2b\x2d-\x7e]{16,256})?$/, {
      message:
        "must be a token of 16 to 256 printable characters without spaces or commas (openssl rand -hex 24), or two separated by a comma while rotating",
    })
    .optional(),
  OPS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  OPS_HOST: z.string().default("127.0.0.1"),
  // Local development, the demo and the tests talk to a service on this machine: "true" lets the merchant's
  // service URLs resolve to loopback (plain http allowed there). Never set it in a deployment (docs/security.md).
  ALLOW_LOOPBACK_SERVICE_URLS: z.enum(["true", "false"]).default("false"),
});

export type Env = z.infer<typeof schema>;

export class ConfigError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const input: Record<string, string | undefined> = { ...source };
  for (const key of Object.keys(input)) if (input[key] === "") delete input[key];
  const production = input.NODE_ENV === "production";
  if (!input.DATABASE_URL && !production) {
    for (const [key, value] of Object.entries(LOCAL_DEFAULTS)) input[key] ??= value;
    input.ENCRYPTION_KEYS ??= localEncryptionKey(input.PGLITE_DATA_DIR ?? "./data/pglite");
  }
  const result = schema
    .refine((config) => !production || appUrlIsSecure(config.SHOPIFY_APP_URL), {
      path: ["SHOPIFY_APP_URL"],
      message:
        "must be an https:// URL in production (plain http only for a loopback address, for a local run of the production build)",
    })
    .safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const name = issue.path.join(".");
      const missing = issue.code === "invalid_type" && input[name] === undefined;
      const when = production ? "with NODE_ENV=production" : "when DATABASE_URL is set";
      return `  ${name}: ${missing ? `is required ${when} (see .env.example)` : issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

// Shopify calls the app, and sends session tokens to it, only over TLS; a production process on plain http would
// take them in clear from anything on the path. Loopback is the exception: nothing off the machine reaches it (the
// demo runs the production build on 127.0.0.1).
function appUrlIsSecure(appUrl: string): boolean {
  const { protocol, hostname } = new URL(appUrl);
  return protocol === "https:" || (protocol === "http:" && isLoopbackHost(hostname));
}

// The embedded default keeps a generated key beside its data, so secrets stay encrypted at rest
// without asking a newcomer to make one. Tests and in-memory runs get a throwaway key.
function localEncryptionKey(dataDir: string): string {
  if (process.env.NODE_ENV === "test") return `test:${randomBytes(32).toString("base64")}`;
  const file = path.resolve(dataDir, "..", "encryption.key");
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `local:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
  }
  return readFileSync(file, "utf8").trim();
}

let cached: Env | undefined;
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
