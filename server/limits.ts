// What one web process gives clients before anything about them is verified: connections, time, and memory for
// request bodies (docs/security.md, "Request bodies and hostile clients"). Read from the environment once at start;
// the defaults are what the docs promise. A value that is not a positive whole number stops the start, by name.
import { BODY_LIMITS } from "../app/lib/body-limit.server";

export interface ServerLimits {
  /** Request-body bytes all requests together may hold at once (declared lengths reserved before reading). */
  bodyBytesInFlight: number;
  /** Open connections served (./connections.ts); one beyond is answered 503 and closed. */
  maxConnections: number;
  /** Open connections one client address may hold (IPv6: its /64), when the process is reached directly. */
  maxConnectionsPerAddress: number;
  /** The last this many of maxConnections (default a tenth) go only to a client holding fewer than two. */
  reservedConnections: number;
  /** Requests one keep-alive connection may carry; the last is answered with `Connection: close`. */
  maxRequestsPerConnection: number;
  /** A keep-alive connection is closed after its answer in progress once it is this old. */
  connectionLifetimeMs: number;
  /** Body budget or connection slots exhausted this long without a break: the process reports not ready. */
  saturatedNotReadyMs: number;
  /** A connection that has sent no byte this long after connecting is closed. */
  idleTimeoutMs: number;
  /** A request's headers must all have arrived this long after its first byte (408 otherwise). */
  headersTimeoutMs: number;
  /** The whole request, body included (408 otherwise). */
  requestTimeoutMs: number;
  /** A webhook's body must all have arrived this long after its headers: Shopify sends it at once. */
  webhookBodyTimeoutMs: number;
}

const MiB = 1024 * 1024;

const DEFAULT_LIMITS: ServerLimits = {
  bodyBytesInFlight: 32 * MiB,
  maxConnections: 800,
  maxConnectionsPerAddress: 64,
  reservedConnections: 80,
  maxRequestsPerConnection: 1_000,
  connectionLifetimeMs: 300_000,
  saturatedNotReadyMs: 30_000,
  idleTimeoutMs: 10_000,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  webhookBodyTimeoutMs: 10_000,
};

const LIMIT_VARIABLES: Record<keyof ServerLimits, string> = {
  bodyBytesInFlight: "BODY_BYTES_IN_FLIGHT",
  maxConnections: "MAX_CONNECTIONS",
  maxConnectionsPerAddress: "MAX_CONNECTIONS_PER_ADDRESS",
  reservedConnections: "RESERVED_CONNECTIONS",
  maxRequestsPerConnection: "MAX_REQUESTS_PER_CONNECTION",
  connectionLifetimeMs: "CONNECTION_LIFETIME_MS",
  saturatedNotReadyMs: "SATURATED_NOT_READY_MS",
  idleTimeoutMs: "IDLE_TIMEOUT_MS",
  headersTimeoutMs: "HEADERS_TIMEOUT_MS",
  requestTimeoutMs: "REQUEST_TIMEOUT_MS",
  webhookBodyTimeoutMs: "WEBHOOK_BODY_TIMEOUT_MS",
};

/** The limits from `env` (unset or empty: the default). Throws, naming the variable, on a value it cannot use. */
export function serverLimits(env: Record<string, string | undefined> = process.env): ServerLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(LIMIT_VARIABLES) as (keyof ServerLimits)[]) {
    const raw = env[LIMIT_VARIABLES[key]];
    if (raw === undefined || raw === "") continue;
    if (!/^\d+$/.test(raw) || Number(raw) <= 0)
      throw new Error(`${LIMIT_VARIABLES[key]} must be a positive whole number (got "${raw}")`);
    limits[key] = Number(raw);
  }
  // Unset: a tenth of the connections, whatever MAX_CONNECTIONS is.
  if (!env.RESERVED_CONNECTIONS) limits.reservedConnections = Math.floor(limits.maxConnections / 10);
  if (limits.bodyBytesInFlight < BODY_LIMITS.webhook) {
    throw new Error(
      `BODY_BYTES_IN_FLIGHT must be at least the webhook body limit (${BODY_LIMITS.webhook} bytes), or no large delivery could ever be taken`,
    );
  }
  if (limits.reservedConnections >= limits.maxConnections)
    throw new Error("RESERVED_CONNECTIONS must be below MAX_CONNECTIONS");
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new Error("HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS");
  return limits;
}

/**
 * TRUSTED_PROXY_HOPS as the server reads it (app/env.server.ts validates it for the app): 0, the default, when the
 * process is reached directly. Behind proxies of our own every connection comes from them, so the per-address
 * connection bound is theirs to keep (./connections.ts).
 */
export const trustedProxyHops = (env: Record<string, string | undefined> = process.env): number =>
  /^\d+$/.test(env.TRUSTED_PROXY_HOPS ?? "") ? Number(env.TRUSTED_PROXY_HOPS) : 0;
