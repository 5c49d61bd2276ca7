import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "./client.ts";
import { apiKeys, tenants } from "./schema.ts";
import { listPage } from "./page.ts";
import { newId } from "../ids.ts";
import { randomToken, sha256Hex } from "../crypto.ts";
import { LIMITS } from "../limits.ts";

export type Tenant = typeof tenants.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;

/** Keys look like `assay_sk_<43 base64url chars>`; the first 16 characters are kept to tell keys apart. */
export const KEY_PREFIX = "assay_sk_";

export async function createTenant(db: Db, name: string): Promise<Tenant> {
  const row: Tenant = { id: newId("ten"), name, createdAt: new Date(), retentionDays: LIMITS.retentionDays.default };
  await db.insert(tenants).values(row);
  return row;
}

export async function getTenant(db: Db, id: string): Promise<Tenant | undefined> {
  return db.select().from(tenants).where(eq(tenants.id, id)).get();
}

export async function listTenants(db: Db, opts: { limit: number; after?: string }) {
  return listPage(db, tenants, undefined, opts);
}

/** Creates a key and returns it with its secret, which is never retrievable again. */
export async function createApiKey(db: Db, tenantId: string, name: string): Promise<{ key: ApiKey; secret: string }> {
  const secret = KEY_PREFIX + randomToken(32);
  const key: ApiKey = {
    id: newId("key"),
    tenantId,
    name,
    prefix: secret.slice(0, 16),
    keyHash: await sha256Hex(secret),
    createdAt: new Date(),
    revokedAt: null,
  };
  await db.insert(apiKeys).values(key);
  return { key, secret };
}

export async function listApiKeys(db: Db, tenantId: string, opts: { limit: number; after?: string }) {
  return listPage(db, apiKeys, eq(apiKeys.tenantId, tenantId), opts);
}

/** Revokes a key; `tenantId` scopes the lookup (undefined only for the operator). Returns the key, or undefined if unknown. */
export async function revokeApiKey(db: Db, keyId: string, tenantId?: string): Promise<ApiKey | undefined> {
  const scope = tenantId ? and(eq(apiKeys.id, keyId), eq(apiKeys.tenantId, tenantId)) : eq(apiKeys.id, keyId);
  const key = await db.select().from(apiKeys).where(scope).get();
  if (!key) return undefined;
  if (key.revokedAt) return key;
  const revokedAt = new Date();
  await db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId));
  return { ...key, revokedAt };
}

/** The active key whose secret hashes to `secret`'s hash, with its tenant. */
export async function findActiveKey(db: Db, secret: string): Promise<ApiKey | undefined> {
  return findActiveKeyByHash(db, await sha256Hex(secret));
}

/** The active key stored under `keyHash` (the SHA-256 of its secret, hex). */
export async function findActiveKeyByHash(db: Db, keyHash: string): Promise<ApiKey | undefined> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .get();
}

/** Wire shapes (snake_case, ISO timestamps); the secret is never part of a stored key. */
export function tenantToWire(t: Tenant) {
  return { id: t.id, name: t.name, created_at: t.createdAt.toISOString() };
}

export function apiKeyToWire(k: ApiKey) {
  return {
    id: k.id,
    tenant_id: k.tenantId,
    name: k.name,
    prefix: k.prefix,
    created_at: k.createdAt.toISOString(),
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}
