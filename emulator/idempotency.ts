// Idempotency keys (contract 3): fingerprint = SHA-256 of the raw body; only 201 outcomes are stored, for 24 h.
import { ExpiringMap } from "./expiring-map";
import type { Reply } from "./http";

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

interface Entry {
  fingerprint: string;
  /** Absent while the first request is still being processed. */
  reply?: Reply;
}

export type Begin =
  | { kind: "new"; reservation: Reservation }
  | { kind: "replay"; reply: Reply }
  | { kind: "conflict"; message: string };

export interface Reservation {
  key: string;
  entry: Entry;
}

export class IdempotencyStore {
  private readonly keys = new ExpiringMap<Entry>();

  /** Looks the key up in its scope; when unused, reserves it (in flight) for this fingerprint. */
  begin(scopedKey: string, fingerprint: string, now: number): Begin {
    const existing = this.keys.get(scopedKey, now);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        return { kind: "conflict", message: "this Idempotency-Key was already used with another request body" };
      }
      if (!existing.reply) return { kind: "conflict", message: "a request with this Idempotency-Key is still in progress" };
      return { kind: "replay", reply: existing.reply };
    }
    const entry: Entry = { fingerprint };
    this.keys.set(scopedKey, entry, now + IDEMPOTENCY_TTL_MS, now);
    return { kind: "new", reservation: { key: scopedKey, entry } };
  }

  /** Stores a 201; any other outcome frees the key so it may be sent again, even with another body. */
  finish(reservation: Reservation, reply: Reply): void {
    // After a reset the reservation is stale: leave whatever is there now alone.
    if (this.keys.peek(reservation.key) !== reservation.entry) return;
    if (reply.status === 201) reservation.entry.reply = reply;
    else this.keys.delete(reservation.key);
  }

  clear(): void {
    this.keys.clear();
  }

  get size(): number {
    return this.keys.size;
  }
}

/** Scoped key: per endpoint, and per client (handoffs) or per workspace and client (imports). */
export function scopedKey(endpoint: string, parts: string[], key: string): string {
  return [endpoint, ...parts, key].join("\u0000");
}
