// A tenant's saved provider connections (`/v1/providers`). Every query is scoped to the tenant, and
// a connection is addressed by its name, unique per tenant (a unique index, so two concurrent creates
// of one name cannot both succeed). The key arrives here already encrypted: this module never sees it.
import { and, count, eq, inArray } from "drizzle-orm";
import type { Db } from "./client.ts";
import { providerConnections } from "./schema.ts";
import { listPage } from "./page.ts";

export type ProviderConnectionRow = typeof providerConnections.$inferSelect;

/** Stores a new connection; false (and nothing stored) when the tenant already has one of that name. */
export async function insertConnection(db: Db, row: ProviderConnectionRow): Promise<boolean> {
  const res = await db
    .insert(providerConnections)
    .values(row)
    .onConflictDoNothing({ target: [providerConnections.tenantId, providerConnections.name] })
    .run();
  return (res.meta.changes ?? 0) > 0;
}

/**
 * Creates the connection or replaces its endpoint and key (PUT), keeping its id and `createdAt`.
 * Returns the stored row and whether it was created.
 */
export async function putConnection(
  db: Db,
  row: ProviderConnectionRow,
): Promise<{ row: ProviderConnectionRow; created: boolean }> {
  const [stored] = await db
    .insert(providerConnections)
    .values(row)
    .onConflictDoUpdate({
      target: [providerConnections.tenantId, providerConnections.name],
      set: { baseUrl: row.baseUrl, apiKeyEnc: row.apiKeyEnc, apiKeyLast4: row.apiKeyLast4, updatedAt: row.updatedAt },
    })
    .returning();
  return { row: stored, created: stored.id === row.id };
}

export async function getConnection(
  db: Db,
  tenantId: string,
  name: string,
): Promise<ProviderConnectionRow | undefined> {
  return db
    .select()
    .from(providerConnections)
    .where(and(eq(providerConnections.tenantId, tenantId), eq(providerConnections.name, name)))
    .get();
}

/** The tenant's connections among `names` (those that exist), in one query. */
export async function getConnections(db: Db, tenantId: string, names: string[]): Promise<ProviderConnectionRow[]> {
  if (!names.length) return [];
  return db
    .select()
    .from(providerConnections)
    .where(and(eq(providerConnections.tenantId, tenantId), inArray(providerConnections.name, names)))
    .all();
}

export async function countConnections(db: Db, tenantId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(providerConnections)
    .where(eq(providerConnections.tenantId, tenantId))
    .get();
  return row?.n ?? 0;
}

export async function listConnections(db: Db, tenantId: string, opts: { limit: number; after?: string }) {
  return listPage(db, providerConnections, eq(providerConnections.tenantId, tenantId), opts);
}

/** Deletes the tenant's connection of that name; false if there was none. */
export async function deleteConnection(db: Db, tenantId: string, name: string): Promise<boolean> {
  const res = await db
    .delete(providerConnections)
    .where(and(eq(providerConnections.tenantId, tenantId), eq(providerConnections.name, name)))
    .run();
  return (res.meta.changes ?? 0) > 0;
}

/** The wire shape: never the key, encrypted or not; only whether there is one and its last four characters. */
export function connectionToWire(r: ProviderConnectionRow) {
  return {
    id: r.id,
    name: r.name,
    base_url: r.baseUrl,
    has_api_key: r.apiKeyEnc !== null,
    api_key_last4: r.apiKeyLast4,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
