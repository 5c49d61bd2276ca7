import { and, asc, eq, gt, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { idempotencyKeys, runs, samples, type RunStatus, type SampleStatus } from "./schema.ts";
import { listPage } from "./page.ts";
import { utf8Bytes } from "../platform/storage-guard.ts";

export type RunRow = typeof runs.$inferSelect;
export type RunInsert = typeof runs.$inferInsert;
export type SampleRow = typeof samples.$inferSelect;

export const FINAL_STATUSES: readonly RunStatus[] = ["succeeded", "failed", "canceled"];

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferInsert;

/**
 * Inserts a run and, with one, the Idempotency-Key record that points at it, in one D1 transaction
 * (`db.batch`): a key never points at a run that was not written, nor a run misses its key. A key
 * taken meanwhile by a concurrent request makes the whole batch fail, the run included.
 */
export async function insertRun(db: Db, given: RunInsert, key?: IdempotencyKeyRow): Promise<void> {
  const row = { ...given, configBytes: utf8Bytes(JSON.stringify(given.config ?? null)) };
  if (key) await db.batch([db.insert(idempotencyKeys).values(key), db.insert(runs).values(row)]);
  else await db.insert(runs).values(row);
}

/**
 * Applies `patch` (a final status) to a run only while its status is one of `from`, and returns the
 * row as it is afterwards with whether this call changed it. Conditional, so a final state written
 * by the run's coordinator (or by a concurrent settle) is never overwritten: of two writers, one wins.
 */
export async function settleRun(
  db: Db,
  id: string,
  from: readonly RunStatus[],
  patch: Partial<typeof runs.$inferInsert>,
): Promise<{ run: RunRow | undefined; changed: boolean }> {
  const changed = await db
    .update(runs)
    .set(patch)
    .where(and(eq(runs.id, id), inArray(runs.status, [...from])))
    .returning()
    .get();
  return changed ? { run: changed, changed: true } : { run: await getRunById(db, id), changed: false };
}

/**
 * Runs of every tenant still `queued` that were created before `before`, oldest first, at most
 * `limit` (the runs_status_created index serves it).
 */
export async function listQueuedBefore(db: Db, before: Date, limit: number): Promise<RunRow[]> {
  return db
    .select()
    .from(runs)
    .where(and(eq(runs.status, "queued"), lt(runs.createdAt, before)))
    .orderBy(asc(runs.createdAt))
    .limit(limit);
}

/** A tenant's run as its reads see it: a run being deleted (src/runs/lifetime/delete.ts) is gone already. */
export async function getRun(db: Db, tenantId: string, id: string): Promise<RunRow | undefined> {
  return db
    .select()
    .from(runs)
    .where(and(eq(runs.id, id), eq(runs.tenantId, tenantId), isNull(runs.deletedAt)))
    .get();
}

export async function getRunById(db: Db, id: string): Promise<RunRow | undefined> {
  return db.select().from(runs).where(eq(runs.id, id)).get();
}

export async function listRuns(
  db: Db,
  tenantId: string,
  opts: { limit: number; after?: string; evaluator?: string; status?: RunStatus },
) {
  return listPage(
    db,
    runs,
    and(
      eq(runs.tenantId, tenantId),
      isNull(runs.deletedAt),
      opts.evaluator ? eq(runs.evaluator, opts.evaluator) : undefined,
      opts.status ? eq(runs.status, opts.status) : undefined,
    ),
    opts,
  );
}

export async function updateRun(db: Db, id: string, patch: Partial<typeof runs.$inferInsert>): Promise<void> {
  await db.update(runs).set(patch).where(eq(runs.id, id));
}

export type SampleInsert = {
  runId: string;
  unitId: string;
  status: SampleStatus;
  attempts: number;
  /** The output's exact JSON text (made with JSON.stringify, which keeps JSON.rawJSON lexemes). */
  output: string | null;
  error: string | null;
  createdAt: Date;
};

// D1 binds at most 100 parameters per statement; one batch carries about 512 K characters of text.
const PARAMS_PER_STATEMENT = 100;
const BATCH_CHARS = 512 * 1024;

/**
 * Writes samples, each once: a second write for the same (run, unit) is ignored, so writing a
 * batch again after an interruption changes nothing. Each `db.batch` is one round trip and one transaction.
 * A row binds one parameter per field it sets (the samples table may gain columns, and callers may set
 * more than `SampleInsert` names), so the rows per statement are counted from the rows themselves.
 */
export async function insertSamples(db: Db, rows: readonly SampleInsert[]): Promise<void> {
  const fields = Math.max(1, ...rows.map((r) => Object.keys(r).length));
  const rowsPerStatement = Math.max(1, Math.floor(PARAMS_PER_STATEMENT / fields));
  let statements: ReturnType<typeof insertStatement>[] = [];
  let chars = 0;
  const send = async () => {
    if (statements.length)
      await db.batch(statements as [ReturnType<typeof insertStatement>, ...ReturnType<typeof insertStatement>[]]);
    statements = [];
    chars = 0;
  };
  for (let i = 0; i < rows.length; i += rowsPerStatement) {
    const chunk = rows.slice(i, i + rowsPerStatement);
    const size = chunk.reduce((n, r) => n + (r.output?.length ?? 0) + (r.error?.length ?? 0), 0);
    if (chars > 0 && chars + size > BATCH_CHARS) await send();
    statements.push(insertStatement(db, chunk));
    chars += size;
  }
  await send();
}

function insertStatement(db: Db, rows: readonly SampleInsert[]) {
  return db
    .insert(samples)
    .values([...rows])
    .onConflictDoNothing({ target: [samples.runId, samples.unitId] });
}

/** The samples of the given units (any order); D1 caps bound parameters, so ids go in chunks. */
export async function getSamples(db: Db, runId: string, unitIds: readonly string[]): Promise<SampleRow[]> {
  const out: SampleRow[] = [];
  for (let i = 0; i < unitIds.length; i += 90) {
    const chunk = unitIds.slice(i, i + 90);
    out.push(
      ...(await db
        .select()
        .from(samples)
        .where(and(eq(samples.runId, runId), inArray(samples.unitId, chunk)))
        .all()),
    );
  }
  return out;
}

/** Samples in write order, after sequence number `afterSeq`. */
export async function listSamples(db: Db, runId: string, opts: { limit: number; afterSeq?: number }) {
  return db
    .select()
    .from(samples)
    .where(and(eq(samples.runId, runId), opts.afterSeq !== undefined ? gt(samples.seq, opts.afterSeq) : undefined))
    .orderBy(asc(samples.seq))
    .limit(opts.limit);
}

/**
 * A run's ended units after sequence number `afterSeq`, in write order: only what an event stream
 * sends (never a sample's output, which may be megabytes), so a page of many costs little memory.
 */
export async function listUnitEvents(db: Db, runId: string, afterSeq: number, limit: number) {
  return db
    .select({ seq: samples.seq, unitId: samples.unitId, status: samples.status })
    .from(samples)
    .where(and(eq(samples.runId, runId), gt(samples.seq, afterSeq)))
    .orderBy(asc(samples.seq))
    .limit(limit);
}

export async function countSamples(db: Db, runId: string): Promise<number> {
  const row = await db.select({ n: sql<number>`count(*)` }).from(samples).where(eq(samples.runId, runId)).get();
  return row?.n ?? 0;
}

export async function findIdempotentRun(db: Db, tenantId: string, key: string) {
  return db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key)))
    .get();
}

export async function insertIdempotencyKey(db: Db, row: typeof idempotencyKeys.$inferInsert): Promise<boolean> {
  const res = await db.insert(idempotencyKeys).values(row).onConflictDoNothing().run();
  return (res.meta?.changes ?? 0) > 0;
}

/** Deletes a key's record if it still points at `runId` (a claim released by the request that made it). */
export async function deleteIdempotencyKey(db: Db, tenantId: string, key: string, runId: string): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.runId, runId)));
}

/** A row's model-call counts, or null where they were not counted (rows stored before they were). */
function callsOf(r: { callRequests: number | null; callRetries: number | null; callRateLimited: number | null }) {
  return r.callRequests === null
    ? null
    : { requests: r.callRequests, retries: r.callRetries ?? 0, rate_limited: r.callRateLimited ?? 0 };
}

/**
 * A run in wire shape. `result` is inline only while it is kept in the row; one stored in R2 is null
 * here, and `result_url` (set for every run with a result, wherever it lives) serves it in full.
 */
export function runToWire(r: RunRow) {
  const hasResult = r.resultKey !== null || r.result != null;
  return {
    id: r.id,
    object: "run" as const,
    evaluator: r.evaluator,
    status: r.status,
    progress: { done: r.done, failed: r.failed, total: r.total },
    calls: callsOf(r),
    config: r.config,
    result: r.resultKey !== null ? null : (r.result ?? null),
    result_url: hasResult ? `/v1/runs/${r.id}/result` : null,
    result_size_bytes: hasResult ? r.resultBytes : null,
    error: r.error,
    webhook_url: r.webhookUrl,
    created_at: r.createdAt.toISOString(),
    started_at: r.startedAt?.toISOString() ?? null,
    finished_at: r.finishedAt?.toISOString() ?? null,
    links: {
      self: `/v1/runs/${r.id}`,
      samples: `/v1/runs/${r.id}/samples`,
      events: `/v1/runs/${r.id}/events`,
      cancel: `/v1/runs/${r.id}/cancel`,
      webhook_deliveries: `/v1/runs/${r.id}/webhook-deliveries`,
      ...(hasResult ? { result: `/v1/runs/${r.id}/result` } : {}),
    },
  };
}

/** `parse` is the evaluator's own output parser, so number lexemes survive the round trip. */
export function sampleToWire(s: SampleRow, parse: (text: string) => unknown) {
  return {
    seq: s.seq,
    unit_id: s.unitId,
    status: s.status,
    attempts: s.attempts,
    calls: callsOf(s),
    output: s.output === null ? null : parse(s.output),
    error: s.error,
    created_at: s.createdAt.toISOString(),
  };
}

/**
 * The ids of the tenant's runs that have not ended (queued or running), at most `limit` of them: what
 * its concurrent-runs quota counts when it reconciles (src/quotas/tenant-quota.ts). Read through the
 * (tenant_id, status, id) index.
 */
export async function unendedRunIds(db: Db, tenantId: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.tenantId, tenantId), inArray(runs.status, ["queued", "running"])))
    .limit(limit)
    .all();
  return rows.map((r) => r.id);
}

/** The status of each of `ids` that is a run of the tenant; read in chunks under D1's 100 bound parameters. */
export async function runStatuses(db: Db, tenantId: string, ids: readonly string[]): Promise<Map<string, RunStatus>> {
  const found = new Map<string, RunStatus>();
  for (let i = 0; i < ids.length; i += 90) {
    const chunk = ids.slice(i, i + 90);
    const rows = await db
      .select({ id: runs.id, status: runs.status })
      .from(runs)
      .where(and(eq(runs.tenantId, tenantId), inArray(runs.id, chunk)))
      .all();
    for (const r of rows) found.set(r.id, r.status);
  }
  return found;
}
