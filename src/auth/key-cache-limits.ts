/**
 * How long a verified API key may be trusted without asking D1 again, in one place; docs/keys.md
 * states the revocation delay that follows from it.
 *
 * Why a revoked key stops working within `revocationBoundSeconds` everywhere:
 * - every entry in KV carries the time it stops being accepted, at most `kvTtlSeconds` after D1 said the
 *   key was active, and no layer accepts it past that (not an isolate, not a KV edge cache serving a copy
 *   after the delete);
 * - an isolate keeps a key it verified itself at most `isolateTtlMs`, and one it read from KV no longer
 *   than the KV entry's own deadline.
 * So every acceptance rests on a D1 read made before the revocation, and lasts at most
 * max(kvTtl, isolateTtl) after it. Revoking also deletes the KV entry and the revoking isolate's copy, so
 * usually it takes effect at once where it was made, and elsewhere once KV's delete has propagated
 * (`kvPropagationSeconds`) plus what an isolate still holds (`isolateTtlMs`).
 */
export const KEY_CACHE_LIMITS = {
  /** How long an isolate keeps a key it verified (in D1 or KV) before asking again. */
  isolateTtlMs: 30_000,
  /** Keys one isolate remembers (about 200 bytes each); past it, the least recently used goes. */
  isolateEntries: 10_000,
  /** How long a verification stored in KV is accepted anywhere. KV refuses an `expirationTtl` under 60 s. */
  kvTtlSeconds: 120,
  /** Cloudflare's stated time for a KV write or delete to reach every location (cached reads). */
  kvPropagationSeconds: 60,
  /** The longest a revoked key can still be accepted anywhere: max(kvTtl, isolateTtl). */
  revocationBoundSeconds: 120,
} as const;
