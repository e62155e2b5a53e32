// Registered apps: client authentication for the token endpoint, and signing secrets with rotation
// (docs/service.md, "Credentials").
import { randomBytes, timingSafeEqual, createHash } from "node:crypto";
import type { ClientConfig } from "./config";

interface SigningSecret {
  secret: string;
  /** When a rotation demoted it: valid until then. Null for the current one (and for config-given ones). */
  expiresAt: number | null;
}

export interface ClientState {
  config: ClientConfig;
  /** Oldest first; the last is the current one. At most two. */
  signingSecrets: SigningSecret[];
}

export class ClientRegistry {
  private readonly clients = new Map<string, ClientState>();

  constructor(
    configs: ClientConfig[],
    private readonly graceSeconds: number,
  ) {
    for (const config of configs) {
      // Both secrets of a config are active until a rotation demotes the older ones.
      const signingSecrets = config.signing_secrets.map((secret) => ({ secret, expiresAt: null }));
      this.clients.set(config.client_id, { config, signingSecrets });
    }
  }

  get(clientId: string): ClientState | undefined {
    return this.clients.get(clientId);
  }

  /** Client id + secret check for the OAuth endpoints, in constant time (hashes make the lengths equal). */
  authenticate(clientId: string, clientSecret: string): ClientState | undefined {
    const client = this.clients.get(clientId);
    if (!client) return undefined;
    const a = createHash("sha256").update(client.config.client_secret).digest();
    const b = createHash("sha256").update(clientSecret).digest();
    return timingSafeEqual(a, b) ? client : undefined;
  }

  activeSigningSecrets(clientId: string, now: number): string[] {
    const client = this.clients.get(clientId);
    if (!client) return [];
    return client.signingSecrets.filter((s) => s.expiresAt === null || now < s.expiresAt).map((s) => s.secret);
  }

  /** A new current secret; the previous current one stays valid for the grace period; older ones are dropped. */
  rotate(clientId: string, now: number): string | undefined {
    const client = this.clients.get(clientId);
    if (!client) return undefined;
    const previous = client.signingSecrets[client.signingSecrets.length - 1];
    const secret = `whsec-${randomBytes(24).toString("hex")}`;
    client.signingSecrets = [
      { secret: previous.secret, expiresAt: now + this.graceSeconds * 1000 },
      { secret, expiresAt: null },
    ];
    return secret;
  }
}
