// The queries of a run's lifetime: marking a run deleted, removing its rows in bounded steps, the
// tenants' retention, and what a tenant stores. Each deleting query is one D1 statement that removes
// at most a given number of rows, so its caller can keep within an invocation's D1 budget.
import { and, asc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { idempotencyKeys, runs, samples, tenants, webhookDeliveries } from "./schema.ts";
import { FINAL_STATUSES, type RunRow } from "./runs.ts";
const DAY_MS = 86_400_000;

/**
 * Marks a tenant's ended run as being deleted, if it is not already: from then on no read finds it.
 * Returns the run as it was when marked, or undefined when nothing was marked (unknown, another
 * tenant's, not ended, or already being deleted).
 */
export async function markRunDeleting(db: Db, tenantId: string, id: string, now: Date): Promise<RunRow | undefined> {
  return db
    .update(runs)
    .set({ deletedAt: now })
    .where(
      and(
        eq(runs.id, id),
        eq(runs.tenantId, tenantId),
        inArray(runs.status, [...FINAL_STATUSES]),
        isNull(runs.deletedAt),
      ),
    )
    .returning()
    .get();
}

/** Runs whose deletion began and is not finished, the oldest deletion first, at most `limit`. */
export async function listDeleting(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: runs.id })
    .from(runs)
    .where(isNotNull(runs.deletedAt))
    .orderBy(asc(runs.deletedAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Deletes up to `limit` of a run's samples in one statement; returns how many it deleted. */
export async function deleteSamplesChunk(db: Db, runId: string, limit: number): Promise<number> {
  const chunk = db.select({ seq: samples.seq }).from(samples).where(eq(samples.runId, runId)).limit(limit);
  const res = await db.delete(samples).where(inArray(samples.seq, chunk)).run();
  return res.meta?.changes ?? 0;
}

/** Deletes up to `limit` of a run's webhook delivery records in one statement; returns how many. */
export async function deleteDeliveriesChunk(db: Db, runId: string, limit: number): Promise<number> {
  const chunk = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.runId, runId))
    .limit(limit);
  const res = await db.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, chunk)).run();
  return res.meta?.changes ?? 0;
}

/** Deletes the Idempotency-Keys that point at the run: the same key may then create a new run. */
export async function deleteRunKeys(db: Db, runId: string): Promise<void> {
  await db.delete(idempotencyKeys).where(eq(idempotencyKeys.runId, runId));
}

/**
 * Deletes the run's row, only once it is marked. Last of a deletion: its samples and deliveries are
 * gone by then (the foreign keys would cascade, but in one unbounded statement).
 */
export async function deleteRunRow(db: Db, runId: string): Promise<void> {
  await db.delete(runs).where(and(eq(runs.id, runId), isNotNull(runs.deletedAt)));
}

/**
 * Marks for deletion up to `limit` ended runs, of every tenant that keeps runs for a number of days,
 * that finished longer ago than their tenant's `retention_days`; returns how many. One statement:
 * for each tenant the index on (tenant_id, finished_at) yields its expired runs, oldest first.
 */
export async function markExpiredRuns(db: Db, now: Date, limit: number): Promise<number> {
  const at = now.getTime();
  const expired = db
    .select({ id: runs.id })
    .from(tenants)
    .innerJoin(
      runs,
      and(eq(runs.tenantId, tenants.id), sql`${runs.finishedAt} < ${at} - ${tenants.retentionDays} * ${DAY_MS}`),
    )
    .where(and(isNotNull(tenants.retentionDays), isNull(runs.deletedAt), inArray(runs.status, [...FINAL_STATUSES])))
    .limit(limit);
  const res = await db.update(runs).set({ deletedAt: now }).where(inArray(runs.id, expired)).run();
  return res.meta?.changes ?? 0;
}

/** A tenant's retention in days; null keeps runs for ever. Undefined for an unknown tenant. */
export async function getRetentionDays(db: Db, tenantId: string): Promise<number | null | undefined> {
  const row = await db.select({ days: tenants.retentionDays }).from(tenants).where(eq(tenants.id, tenantId)).get();
  return row ? row.days : undefined;
}

export async function setRetentionDays(db: Db, tenantId: string, days: number | null): Promise<void> {
  await db.update(tenants).set({ retentionDays: days }).where(eq(tenants.id, tenantId));
}

/** What a tenant stores, counted from its runs' rows (never its samples): see `GET /v1/usage`. */
export type TenantUsage = { runs: number; samples: number; d1Bytes: number; r2Bytes: number };

/**
 * One aggregate over the tenant's runs that are not being deleted: their count, their samples (one per
 * ended unit), and the bytes of text they keep in D1 (the samples' output and error, the run's config
 * and an inline result) and in R2 (a result too large for the row).
 */
export async function tenantUsage(db: Db, tenantId: string): Promise<TenantUsage> {
  const row = await db
    .select({
      runs: sql<number>`count(*)`,
      samples: sql<number>`coalesce(sum(${runs.done} + ${runs.failed}), 0)`,
      d1Bytes: sql<number>`coalesce(sum(coalesce(${runs.sampleBytes}, 0) + coalesce(${runs.configBytes}, length(CAST(${runs.config} AS BLOB))) + CASE WHEN ${runs.resultKey} IS NULL THEN coalesce(${runs.resultBytes}, 0) ELSE 0 END), 0)`,
      r2Bytes: sql<number>`coalesce(sum(CASE WHEN ${runs.resultKey} IS NOT NULL THEN coalesce(${runs.resultBytes}, 0) ELSE 0 END), 0)`,
    })
    .from(runs)
    .where(and(eq(runs.tenantId, tenantId), isNull(runs.deletedAt)))
    .get();
  return { runs: row?.runs ?? 0, samples: row?.samples ?? 0, d1Bytes: row?.d1Bytes ?? 0, r2Bytes: row?.r2Bytes ?? 0 };
}
