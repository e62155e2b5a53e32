// Which connections the web process serves (./http-server.ts), so that no one client can hold them all:
// - at most `maxConnections` served at once, and, when the process is reached directly (TRUSTED_PROXY_HOPS=0), at
//   most `maxConnectionsPerAddress` of them from one client address, keyed by the budgets' address rule (an IPv6
//   client by its /64: app/lib/client-address.ts);
// - the last `reservedConnections` slots only for a client that holds fewer than two, so a newcomer (Shopify
//   delivering a webhook) still gets in while one client holds every other slot;
// - a connection refused is not reset: its first request is answered 503 with Retry-After and the connection
//   closed (a client that sends nothing is closed after a moment); Node resets only beyond a hard cap above these;
// - a keep-alive connection carries at most `maxRequestsPerConnection` requests and lives `connectionLifetimeMs`:
//   the answer after either says `Connection: close`, so even an allowed client's sockets turn over.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { addressKey } from "../app/lib/client-address";
import type { BodyBudget } from "./bodies";
import type { ServerLimits } from "./limits";

type GateLimits = Pick<
  ServerLimits,
  | "maxConnections"
  | "maxConnectionsPerAddress"
  | "reservedConnections"
  | "connectionLifetimeMs"
  | "maxRequestsPerConnection"
>;

interface Connection {
  /** The client's address key, or null behind proxies of ours (every connection is theirs). */
  key: string | null;
  served: boolean;
  opened: number;
  requests: number;
}

/** A refused connection that sends no request within this is closed. */
const REFUSED_GRACE_MS = 500;

export class ConnectionGate {
  private served = 0;
  private readonly perAddress = new Map<string, number>();
  private readonly connections = new WeakMap<Socket, Connection>();
  private saturatedAt: number | undefined;

  /** `perAddress`: bound each client address (false behind proxies of ours, whose addresses every client shares). */
  constructor(
    private readonly limits: GateLimits,
    private readonly byAddress: boolean,
  ) {}

  /** Connections served now (refused ones not counted). */
  get open(): number {
    return this.served;
  }

  /** Takes a new socket in: served, or refused (its first request will be answered 503). */
  admit(socket: Socket): boolean {
    const key = this.byAddress ? addressKey(socket.remoteAddress ?? "") : null;
    const held = key === null ? 0 : (this.perAddress.get(key) ?? 0);
    const free = this.limits.maxConnections - this.served;
    const served =
      free > 0 && held < this.limits.maxConnectionsPerAddress && (free > this.limits.reservedConnections || held < 2);
    this.connections.set(socket, { key, served, opened: Date.now(), requests: 0 });
    if (served) {
      this.served++;
      if (key !== null) this.perAddress.set(key, held + 1);
      socket.once("close", () => {
        this.served--;
        if (key !== null) {
          const left = (this.perAddress.get(key) ?? 1) - 1;
          if (left > 0) this.perAddress.set(key, left);
          else this.perAddress.delete(key);
        }
        this.noteLevel();
      });
    } else {
      const grace = setTimeout(() => socket.destroy(), REFUSED_GRACE_MS);
      grace.unref();
      socket.once("close", () => clearTimeout(grace));
    }
    this.noteLevel();
    return served;
  }

  /**
   * For each request: false when its connection was refused (answer it with a 503 and close). A served connection
   * at its last request or past its lifetime gets this answer with `Connection: close`, and is closed after it.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const connection = this.connections.get(req.socket);
    if (!connection?.served) return false;
    // Node's own maxRequestsPerSocket says `Connection: close` but leaves the socket open: this closes it.
    if (
      ++connection.requests >= this.limits.maxRequestsPerConnection ||
      Date.now() - connection.opened >= this.limits.connectionLifetimeMs
    )
      res.shouldKeepAlive = false;
    return true;
  }

  /** How long every slot a client already holding connections could take has been held, without a break (ms). */
  saturatedFor(now = Date.now()): number {
    return this.saturatedAt === undefined ? 0 : now - this.saturatedAt;
  }

  private noteLevel() {
    if (this.served < this.limits.maxConnections - this.limits.reservedConnections) this.saturatedAt = undefined;
    else this.saturatedAt ??= Date.now();
  }
}

/** Readiness of intake: what has been exhausted for `ms` or longer (the body budget, the connection slots), or null. */
export function intakeProblem(budget: BodyBudget, gate: ConnectionGate, ms: number): string | null {
  if (budget.exhaustedFor() >= ms) return "body budget exhausted";
  if (gate.saturatedFor() >= ms) return "connection slots exhausted";
  return null;
}
