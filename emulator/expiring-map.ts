// A Map whose entries expire at a given time. Entries are added in time order (now + a fixed TTL), so pruning
// only ever looks at the oldest entries at the head: amortised O(1), never a scan of the whole map.
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number, now: number): void {
    this.prune(now);
    // Delete first so the entry moves to the tail and the map stays in expiry order.
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
  }

  /** The stored value whether expired or not (for identity checks). */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.entries.delete(key);
    }
  }
}
