import { and, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { sampleCache } from "./schema.ts";

/**
 * A cache of unit results shared across a tenant's runs (rpl's sample cache): values are stored
 * as JSON and come back as the evaluator stored them. Declared with its storage, so the evaluators
 * depend on the db layer and not the other way round.
 */
export interface SampleCache {
  get(key: string): Promise<unknown | null>;
  put(key: string, value: unknown): Promise<void>;
}

/** The tenant's sample cache in D1. The first write for a key wins, so concurrent units agree on one value. */
export function d1SampleCache(db: Db, tenantId: string): SampleCache {
  return {
    async get(key) {
      const row = await db
        .select({ value: sampleCache.value })
        .from(sampleCache)
        .where(and(eq(sampleCache.tenantId, tenantId), eq(sampleCache.cacheKey, key)))
        .get();
      return row ? JSON.parse(row.value) : null;
    },
    async put(key, value) {
      await db
        .insert(sampleCache)
        .values({ tenantId, cacheKey: key, value: JSON.stringify(value), createdAt: new Date() })
        .onConflictDoNothing();
    },
  };
}
