// The emulator's HTTP server: routing, body limit, faults, request log. Handlers live in their own modules.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as admin from "./admin";
import { claimGet, claimPost } from "./claim-page";
import { ClientRegistry } from "./clients";
import { DEFAULT_CONFIG, DEFAULT_GRACE_SECONDS, DEFAULT_RATE_LIMIT, parseConfig, type EmulatorConfig } from "./config";
import type { Context } from "./context";
import { ExpiringMap } from "./expiring-map";
import { Faults } from "./faults";
import { createHandoff } from "./handoffs";
import { errorReply, parseParams, readBody, send, type Reply } from "./http";
import { IdempotencyStore } from "./idempotency";
import { importOrder, importShipment } from "./imports";
import { authorizeGet, authorizePost, revoke, token } from "./oauth";
import { OAuthState } from "./oauth-state";
import { RateLimiter } from "./rate-limit";
import { Store } from "./store";

export { DEFAULT_CONFIG, type EmulatorConfig } from "./config";

export interface EmulatorOptions {
  /** 0 = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  config?: EmulatorConfig;
  /** ms clock, for tests. */
  now?: () => number;
}

export interface RunningEmulator {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  port: number;
  config: EmulatorConfig;
  close(): Promise<void>;
}

const SERVICE_PATHS = new Set(["/api/v1/cart-handoffs", "/api/v1/orders", "/api/v1/shipments"]);
const CLAIM_PATH = /^\/claim\/([^/]+)$/;
const ROTATE_PATH = /^\/_emulator\/clients\/([^/]+)\/rotate-signing-secret$/;

const internals = new WeakMap<RunningEmulator, Context>();

/** The live state behind a running emulator, for tests that need a fast path (e.g. seeding 100,000 orders). */
export function emulatorInternals(running: RunningEmulator): Context {
  const ctx = internals.get(running);
  if (!ctx) throw new Error("not a running emulator");
  return ctx;
}

/** A path segment, percent-decoded; undefined when the escape is malformed (then no such resource exists). */
function segment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function methodNotAllowed(allow: string): Reply {
  return errorReply(405, "method_not_allowed", `use ${allow}`, { allow });
}

async function route(ctx: Context, req: IncomingMessage, url: URL, body: Buffer): Promise<Reply> {
  const method = req.method ?? "GET";
  const path = url.pathname;

  if (path.startsWith("/_emulator/")) {
    if (path === "/_emulator/state") return method === "GET" ? admin.state(ctx) : methodNotAllowed("GET");
    if (path === "/_emulator/faults") return method === "POST" ? admin.addFault(ctx, body) : methodNotAllowed("POST");
    if (path === "/_emulator/reset") return method === "POST" ? admin.reset(ctx) : methodNotAllowed("POST");
    const rotate = ROTATE_PATH.exec(path);
    if (rotate)
      return method === "POST" ? admin.rotateSigningSecret(ctx, segment(rotate[1]) ?? "") : methodNotAllowed("POST");
    return errorReply(404, "not_found", "no such emulator endpoint");
  }

  const canned = await ctx.faults.cannedReply(method, path);
  if (canned) return canned;

  if (SERVICE_PATHS.has(path) && method !== "POST") return methodNotAllowed("POST");
  if (path === "/api/v1/cart-handoffs") return createHandoff(ctx, req, req.url ?? path, body);
  if (path === "/api/v1/orders") return importOrder(ctx, req, body);
  if (path === "/api/v1/shipments") return importShipment(ctx, req, body);
  if (path === "/oauth/authorize") {
    if (method === "GET") return authorizeGet(ctx, url, parseParams(url.search));
    if (method === "POST") return authorizePost(ctx, req, body);
    return methodNotAllowed("GET, POST");
  }
  if (path === "/oauth/token") return method === "POST" ? token(ctx, req, body) : methodNotAllowed("POST");
  if (path === "/oauth/revoke") return method === "POST" ? revoke(ctx, req, body) : methodNotAllowed("POST");
  const claim = CLAIM_PATH.exec(path);
  if (claim) {
    const id = segment(claim[1]) ?? "";
    if (method === "GET") return claimGet(ctx, id);
    if (method === "POST") return claimPost(ctx, id, req, body);
    return methodNotAllowed("GET, POST");
  }
  return errorReply(404, "not_found", "no such endpoint");
}

async function handle(ctx: Context, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://emulator.invalid");
  let reply: Reply;
  try {
    const { bytes, tooLarge } = await readBody(req);
    // docs/service.md, "Size limits": before any other check.
    reply = tooLarge
      ? errorReply(413, "payload_too_large", "bodies are limited to 1 MiB")
      : await route(ctx, req, url, bytes);
  } catch (err) {
    console.error("emulator: internal error", err);
    reply = errorReply(500, "internal_error", "the emulator failed; see its log");
  }
  if (SERVICE_PATHS.has(url.pathname)) {
    const key = req.headers["idempotency-key"];
    ctx.store.requests.push({
      at: new Date(ctx.now()).toISOString(),
      method: req.method ?? "GET",
      path: url.pathname,
      status: reply.status,
      error: reply.error ?? null,
      idempotency_key: typeof key === "string" ? key : null,
      replayed: reply.replayed ?? false,
      external_id: reply.externalId ?? null,
      workspace_id: reply.workspaceId ?? null,
    });
  }
  if (!res.destroyed) send(res, reply);
}

function createContext(config: EmulatorConfig, now: () => number, baseUrl: () => string): Context {
  const rate = config.rate_limit ?? DEFAULT_RATE_LIMIT;
  return {
    config,
    now,
    baseUrl,
    clients: new ClientRegistry(config.clients, config.signing_secret_grace_seconds ?? DEFAULT_GRACE_SECONDS),
    workspaces: new Map(config.workspaces.map((w) => [w.id, w])),
    store: new Store(),
    idempotency: new IdempotencyStore(),
    nonces: new ExpiringMap<true>(),
    rateLimiter: new RateLimiter(rate.capacity, rate.leak_per_second),
    oauth: new OAuthState(),
    faults: new Faults(),
  };
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const parsed = parseConfig(structuredClone(options.config ?? DEFAULT_CONFIG));
  const config: EmulatorConfig = {
    ...parsed,
    rate_limit: parsed.rate_limit ?? { ...DEFAULT_RATE_LIMIT },
    signing_secret_grace_seconds: parsed.signing_secret_grace_seconds ?? DEFAULT_GRACE_SECONDS,
  };
  const host = options.host ?? "127.0.0.1";
  let url = "";
  const ctx = createContext(config, options.now ?? Date.now, () => url);
  const server = createServer((req, res) => {
    void handle(ctx, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const running: RunningEmulator = {
    url,
    port,
    config,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
  internals.set(running, ctx);
  return running;
}
