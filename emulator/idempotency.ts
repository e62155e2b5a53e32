// Idempotency keys (docs/service.md, "Idempotency keys"): fingerprint = SHA-256 of the raw body; only 201 outcomes
// are stored, for 24 h.
import { ExpiringMap } from "./expiring-map";
import { errorReply, type Reply } from "./http";
import { sha256Hex } from "./signature";

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

interface Entry {
  fingerprint: string;
  /** Absent while the first request is still being processed. */
  reply?: Reply;
}

export class IdempotencyStore {
  private readonly keys = new ExpiringMap<Entry>();

  /**
   * Step 5 of the checks, and what follows it: replay a stored 201 (with Idempotent-Replayed), refuse an
   * in-flight or other-body use with 409, or reserve the key, do the work and keep its outcome only if it is a 201
   * (any other outcome frees the key). `whileReserved` runs between reserving and working: the fault delay that
   * lets a concurrent retry see the key in flight.
   */
  async run(
    scopedKey: string,
    body: Buffer | string,
    now: number,
    whileReserved: () => Promise<void>,
    work: () => Reply,
  ): Promise<Reply> {
    const fingerprint = sha256Hex(body);
    const existing = this.keys.get(scopedKey, now);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        return errorReply(
          409,
          "idempotency_conflict",
          "this Idempotency-Key was already used with another request body",
        );
      }
      if (!existing.reply)
        return errorReply(409, "idempotency_conflict", "a request with this Idempotency-Key is still in progress");
      return {
        ...existing.reply,
        headers: { ...existing.reply.headers, "idempotent-replayed": "true" },
        replayed: true,
      };
    }
    const entry: Entry = { fingerprint };
    this.keys.set(scopedKey, entry, now + IDEMPOTENCY_TTL_MS, now);
    let reply: Reply | undefined;
    try {
      await whileReserved();
      reply = work();
      return reply;
    } finally {
      // After a reset the entry is stale: leave whatever is there now alone.
      if (this.keys.peek(scopedKey) === entry) {
        if (reply?.status === 201) entry.reply = reply;
        else this.keys.delete(scopedKey);
      }
    }
  }

  clear(): void {
    this.keys.clear();
  }
}

/** Scoped key: per endpoint, and per client (handoffs) or per workspace and client (imports). */
export function scopedKey(endpoint: string, parts: string[], key: string): string {
  return [endpoint, ...parts, key].join("\u0000");
}
