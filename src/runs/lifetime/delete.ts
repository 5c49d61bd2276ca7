// Deleting a run: `DELETE /v1/runs/{id}` and the retention the cron applies (housekeeping.ts). A run is marked
// first (`runs.deleted_at`): from that moment no read finds it, and the mark is how a deletion cut
// short anywhere is found again. Its data then goes in steps that are each idempotent (doing one
// twice deletes nothing more) and bounded (each D1 statement removes at most a chunk of rows), the
// row itself last; what one invocation's budget does not reach, the cron finishes (`sweepDeletions`).
import type { Db } from "../../db/client.ts";
import {
  deleteDeliveriesChunk,
  deleteRunKeys,
  deleteRunRow,
  deleteSamplesChunk,
  listDeleting,
} from "../../db/lifetime.ts";
import { limitOf } from "../../platform/limits.ts";

/**
 * Samples per DELETE statement. A sample is at most LIMITS.sampleBytes, and a statement is one
 * transaction in D1's single writer: 500 keeps one statement short while a 60,000-unit run needs
 * 120 of them, within one invocation's budget.
 */
export const SAMPLES_PER_STATEMENT = 500;
/** Webhook delivery records per DELETE statement (a run has a few; retried deliveries add some). */
const DELIVERIES_PER_STATEMENT = 500;
/** R2 lists and deletes at most this many keys per call. */
const R2_KEYS_PER_CALL = 1_000;

/**
 * The D1 queries a `DELETE /v1/runs/{id}` spends on the run's data (50,000 samples) before it leaves
 * the rest to the cron: a request stays well inside its invocation's 1,000, and answers in seconds.
 */
export const REQUEST_DELETION_QUERIES = 100;
/**
 * The D1 queries one cron tick spends on deletions (about 240,000 samples): half the invocation's
 * budget, the other half left to the tick's other sweeps (lost starts, retention).
 */
export const TICK_DELETION_QUERIES = Math.floor(limitOf("d1QueriesPerInvocation") / 2);

/** D1 queries a piece of deletion work may still make; each statement takes one. */
export class QueryBudget {
  private left: number;
  constructor(queries: number) {
    this.left = queries;
  }
  get exhausted(): boolean {
    return this.left <= 0;
  }
  take(): void {
    this.left--;
  }
}

/** The R2 key prefix under which every object of a run lives (its result, per-item scores, compare caches). */
export const runPrefix = (runId: string): string => `runs/${runId}/`;

/**
 * Deletes what remains of a run whose deletion began, in order: its coordinator's storage, its R2
 * objects, its webhook deliveries, its samples, its Idempotency-Keys and last its row. Returns
 * "deleted" once the row is gone, "pending" when the budget ran out or its coordinator still holds
 * the run (a finish writing its last mark): the cron continues from the mark. Throws what D1, R2 or
 * the coordinator throw; every step done so far stays done.
 */
export async function deleteRunData(
  env: Env,
  db: Db,
  runId: string,
  budget: QueryBudget,
): Promise<"deleted" | "pending"> {
  if (!(await env.RUNS.get(env.RUNS.idFromName(runId)).purge())) return "pending";
  await deleteRunObjects(env.RESULTS, runId);
  for (const [chunk, size] of [
    [deleteDeliveriesChunk, DELIVERIES_PER_STATEMENT],
    [deleteSamplesChunk, SAMPLES_PER_STATEMENT],
  ] as const) {
    for (;;) {
      if (budget.exhausted) return "pending";
      budget.take();
      if ((await chunk(db, runId, size)) < size) break;
    }
  }
  if (budget.exhausted) return "pending";
  budget.take();
  await deleteRunKeys(db, runId);
  if (budget.exhausted) return "pending";
  budget.take();
  await deleteRunRow(db, runId);
  return "deleted";
}

/**
 * Every R2 object of the run: those under `runs/<id>/`, and the comparisons cached under another
 * run's prefix with this one as head (`runs/<base>/compare/<id>/…`), each found by its marker
 * `runs/<id>/compared-with/<base>`. A marker is deleted only after its base's cache, so a deletion
 * cut short in between finds it again; the run's own prefix goes last.
 */
export async function deleteRunObjects(bucket: R2Bucket, runId: string): Promise<void> {
  const markers = `${runPrefix(runId)}compared-with/`;
  await forEachPage(bucket, markers, async (keys) => {
    for (const marker of keys)
      await deletePrefix(bucket, `${runPrefix(marker.slice(markers.length))}compare/${runId}/`);
    await bucket.delete(keys);
  });
  await deletePrefix(bucket, runPrefix(runId));
}

async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  await forEachPage(bucket, prefix, (keys) => bucket.delete(keys));
}

/**
 * Hands each page of keys under `prefix` to `fn`, which deletes them. Each page is listed from the
 * start of what remains, so deleting while listing never skips a key.
 */
async function forEachPage(bucket: R2Bucket, prefix: string, fn: (keys: string[]) => Promise<void>): Promise<void> {
  for (;;) {
    const page = await bucket.list({ prefix, limit: R2_KEYS_PER_CALL });
    if (page.objects.length === 0) return;
    await fn(page.objects.map((o) => o.key));
    if (!page.truncated) return;
  }
}

/**
 * For the cron: continues every deletion under way, oldest first, within `queries` D1 queries in
 * all. A deletion that throws is logged and left for the next tick; the others go on. Returns the
 * runs whose deletion finished.
 */
export async function sweepDeletions(
  env: Env,
  db: Db,
  { queries = TICK_DELETION_QUERIES }: { queries?: number } = {},
): Promise<number> {
  const budget = new QueryBudget(queries);
  budget.take();
  // At most one run per query of the budget: each takes at least its row's delete.
  const pending = await listDeleting(db, Math.max(1, queries));
  let deleted = 0;
  for (const runId of pending) {
    if (budget.exhausted) break;
    try {
      if ((await deleteRunData(env, db, runId, budget)) === "deleted") deleted++;
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          run_id: runId,
          error: `deleting the run failed, continued at the next cron tick: ${String(err)}`,
        }),
      );
    }
  }
  return deleted;
}
