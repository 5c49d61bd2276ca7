// API keys verified at the edge: this isolate's memory first, then Workers KV (shared by every location),
// and D1 (one region) only when neither knows the key. The delays this allows a revocation, and why they
// hold, are in key-cache-limits.ts.
import type { Db } from "../db/client.ts";
import { findActiveKeyByHash, revokeApiKey, type ApiKey } from "../db/tenants.ts";
import { sha256Hex } from "../crypto.ts";
import { KeyCache, type CachedKey } from "./key-cache.ts";
import { KEY_CACHE_LIMITS } from "./key-cache-limits.ts";

export type { CachedKey as VerifiedKey };

/** This isolate's verified keys: module state lives as long as the isolate does, across requests. */
export const isolateKeys = new KeyCache({ maxEntries: KEY_CACHE_LIMITS.isolateEntries });

/**
 * Where verifications are kept. `memo` and `now` are seams: a test plays another isolate (its own memo)
 * at a later time (its own clock) against the same D1 and KV.
 */
export type KeyStores = { db: Db; kv: KVNamespace; memo?: KeyCache; now?: () => number };

/** The KV value: never the key itself (the KV key is its hash), and the time it stops being accepted. */
type KvEntry = { tenant_id: string; key_id: string; until: number };

/** KV key of a key's verification; versioned so a change of the value's shape never reads an old one. */
export function kvName(keyHash: string): string {
  return `key:v1:${keyHash}`;
}

function asKvEntry(v: unknown): KvEntry | undefined {
  const e = v as Partial<KvEntry> | null;
  return e && typeof e.tenant_id === "string" && typeof e.key_id === "string" && typeof e.until === "number"
    ? (e as KvEntry)
    : undefined;
}

function logWarning(message: string, err: unknown): void {
  console.error(JSON.stringify({ level: "warn", message, error: String(err) }));
}

/**
 * The tenant and id of the active key `secret`, or undefined for an unknown or revoked key: what this
 * isolate knows (`knownKey`), else a look-up in KV and D1 (`lookUpKey`).
 */
export async function verifyApiKey(stores: KeyStores, secret: string): Promise<CachedKey | undefined> {
  const keyHash = await sha256Hex(secret);
  return knownKey(stores, keyHash) ?? lookUpKey(stores, keyHash);
}

/** Look-ups of keys under way, per isolate memo: requests sent at once with one key share one look-up. */
const lookUps = new WeakMap<KeyCache, Map<string, Promise<CachedKey | undefined>>>();

function lookUpsOf(memo: KeyCache): Map<string, Promise<CachedKey | undefined>> {
  let pending = lookUps.get(memo);
  if (!pending) lookUps.set(memo, (pending = new Map()));
  return pending;
}

/**
 * What this isolate knows of a key without asking a store: the key it verified, a look-up of it under
 * way (to share), or undefined. The throttle counts only what this cannot answer (middleware/auth.ts).
 */
export function knownKey(
  { memo = isolateKeys, now = Date.now }: KeyStores,
  keyHash: string,
): CachedKey | Promise<CachedKey | undefined> | undefined {
  return memo.get(keyHash, now()) ?? lookUpsOf(memo).get(keyHash);
}

/**
 * Asks KV, then D1, for the key with hash `keyHash`, and remembers a positive answer in this isolate.
 *
 * Only positives are remembered, in memory and in KV: an unknown key costs a KV read and a D1 read each
 * time, as it did before the cache, and can fill neither. A KV failure is not the caller's problem: the
 * lookup falls through to D1, and a failed write only means the next location asks D1 too.
 */
export function lookUpKey(stores: KeyStores, keyHash: string): Promise<CachedKey | undefined> {
  const pending = lookUpsOf(stores.memo ?? isolateKeys);
  const lookUp = fromStores(stores, keyHash).finally(() => pending.delete(keyHash));
  pending.set(keyHash, lookUp);
  return lookUp;
}

async function fromStores(
  { db, kv, memo = isolateKeys, now = Date.now }: KeyStores,
  keyHash: string,
): Promise<CachedKey | undefined> {
  const t = now();
  let stored: KvEntry | undefined;
  try {
    stored = asKvEntry(await kv.get(kvName(keyHash), "json"));
  } catch (err) {
    logWarning("KEY_CACHE read failed; asking D1", err);
  }
  // `until` is checked here, not left to KV's expiry: a location's cached read may outlive a delete.
  if (stored && t < stored.until) {
    const key = { tenantId: stored.tenant_id, keyId: stored.key_id };
    memo.set(keyHash, key, Math.min(t + KEY_CACHE_LIMITS.isolateTtlMs, stored.until));
    return key;
  }

  const row = await findActiveKeyByHash(db, keyHash);
  if (!row) return undefined;
  const key = { tenantId: row.tenantId, keyId: row.id };
  // `t` was read before D1 answered, so both deadlines count from no later than the verification.
  const entry: KvEntry = {
    tenant_id: key.tenantId,
    key_id: key.keyId,
    until: t + KEY_CACHE_LIMITS.kvTtlSeconds * 1000,
  };
  try {
    await kv.put(kvName(keyHash), JSON.stringify(entry), { expirationTtl: KEY_CACHE_LIMITS.kvTtlSeconds });
  } catch (err) {
    logWarning("KEY_CACHE write failed; the key stays verified in this isolate only", err);
  }
  memo.set(keyHash, key, t + KEY_CACHE_LIMITS.isolateTtlMs);
  return key;
}

/**
 * Drops a key's verification from this isolate and from KV. Other isolates and KV's edge caches may
 * still accept it until their deadlines (key-cache-limits.ts), which hold even if the delete fails.
 */
export async function forgetKey(
  { kv, memo = isolateKeys }: Pick<KeyStores, "kv" | "memo">,
  keyHash: string,
): Promise<void> {
  memo.delete(keyHash);
  try {
    await kv.delete(kvName(keyHash));
  } catch (err) {
    logWarning("KEY_CACHE delete failed; the revocation takes effect within the cache's bound", err);
  }
}

/**
 * Revokes a key in D1 and forgets its verification; `tenantId` scopes the lookup (undefined only for the
 * operator). A key already revoked is forgotten again, so repeating a revocation repairs a failed delete.
 */
export async function revokeKey(stores: KeyStores, keyId: string, tenantId?: string): Promise<ApiKey | undefined> {
  const key = await revokeApiKey(stores.db, keyId, tenantId);
  if (key) await forgetKey(stores, key.keyHash);
  return key;
}
