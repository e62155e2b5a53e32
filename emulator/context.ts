// The emulator's live state, handed to every handler.
import type { ClientRegistry } from "./clients";
import type { EmulatorConfig } from "./config";
import type { ExpiringMap } from "./expiring-map";
import type { Faults } from "./faults";
import type { IdempotencyStore } from "./idempotency";
import type { OAuthState } from "./oauth-state";
import type { RateLimiter } from "./rate-limit";
import type { Store } from "./store";

export interface Context {
  config: EmulatorConfig;
  /** ms clock (replaceable by tests). */
  now(): number;
  /** The one origin that serves base URL, sandbox base URL and auth URL (docs/service.md, "Environments and URLs"). */
  baseUrl(): string;
  clients: ClientRegistry;
  workspaces: Map<string, { id: string; name: string }>;
  store: Store;
  idempotency: IdempotencyStore;
  /** Seen nonces, keyed `client\0nonce` (per client, 600 s: docs/service.md, "Cart handoff signature"). */
  nonces: ExpiringMap<true>;
  rateLimiter: RateLimiter;
  oauth: OAuthState;
  faults: Faults;
}
