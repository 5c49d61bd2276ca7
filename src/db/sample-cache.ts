import { and, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { sampleCache } from "./schema.ts";
import type { SampleCache } from "../evaluators/types.ts";

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
