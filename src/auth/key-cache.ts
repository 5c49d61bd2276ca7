/**
 * An isolate's memory of API keys it has verified: a bounded least-recently-used map from a key's
 * SHA-256 to what it verified as, each entry good until its own deadline. Pure (the clock is passed
 * in), so the bound on revocation it gives can be tested without waiting.
 *
 * It holds positives only, and only what D1 or KV vouched for: an unknown key never gets an entry, so
 * a flood of made-up keys cannot grow it, and a full map only forgets the least recently used key.
 */
export type CachedKey = { tenantId: string; keyId: string };

type Entry = CachedKey & { until: number };

export class KeyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;

  constructor({ maxEntries }: { maxEntries: number }) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError("KeyCache: maxEntries must be a positive integer");
    this.#maxEntries = maxEntries;
  }

  /** The key verified under `keyHash`, if its deadline is still ahead of `now` (ms). */
  get(keyHash: string, now: number): CachedKey | undefined {
    const entry = this.#entries.get(keyHash);
    if (!entry) return undefined;
    this.#entries.delete(keyHash);
    if (now >= entry.until) return undefined;
    // Re-inserted to mark it most recently used: a Map iterates in insertion order.
    this.#entries.set(keyHash, entry);
    return { tenantId: entry.tenantId, keyId: entry.keyId };
  }

  /** Remembers a verified key until `until` (ms), forgetting the least recently used one when full. */
  set(keyHash: string, key: CachedKey, until: number): void {
    this.#entries.delete(keyHash);
    this.#entries.set(keyHash, { tenantId: key.tenantId, keyId: key.keyId, until });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  delete(keyHash: string): void {
    this.#entries.delete(keyHash);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
