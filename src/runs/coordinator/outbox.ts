// The outbox: each unit's sample, recorded in the same write that ends the unit, copied to D1 in
// batches with the progress counters after it, and kept until the run ends for its aggregate. While
// the run goes it is also what the progress is counted from: it holds one row per ended unit. The
// aggregate reads it through a paged cursor (`samples`), never all at once.
import { openDb } from "../../db/client.ts";
import { insertSamples, updateRun, type SampleInsert } from "../../db/runs.ts";
import type { samples } from "../../db/schema.ts";
import { evaluators } from "../../evaluators/registry.ts";
import { LIMITS } from "../../limits.ts";
import { utf8Bytes } from "../../platform/storage-guard.ts";
import { addCalls, noCalls, type ModelCalls } from "../lanes/model-calls.ts";
import { addColumns, type Store } from "./store.ts";
import type { Progress, UnitSample } from "./types.ts";

/** Samples per read of the outbox. */
const FLUSH_ROWS = 200;
/** Samples per page the aggregate reads: their outputs are what a page holds in memory. */
const AGGREGATE_ROWS = 500;

/** A recorded sample as the aggregate reads it. */
export type OutboxSample = {
  unit_id: string;
  status: "succeeded" | "failed";
  output: string | null;
  error: string | null;
};

type OutboxRow = {
  seq: number;
  unit_id: string;
  status: "succeeded" | "failed";
  attempts: number;
  output: string | null;
  error: string | null;
  created_at: number;
  requests: number | null;
  retries: number | null;
  rate_limited: number | null;
};

/** The UTF-8 size of a sample's text, counted exactly only when it could be near the limit (else its length, a lower bound). */
function sampleBytes(s: UnitSample): number {
  const chars = (s.output?.length ?? 0) + (s.error?.length ?? 0);
  if (chars * 3 <= LIMITS.sampleBytes) return chars;
  const encoder = new TextEncoder();
  return encoder.encode(s.output ?? "").length + encoder.encode(s.error ?? "").length;
}

/** An outbox row as D1 stores it (its model calls in the samples' call columns; null where they were not counted). */
function sampleInsert(
  runId: string,
  r: OutboxRow,
): SampleInsert & Pick<typeof samples.$inferInsert, "callRequests" | "callRetries" | "callRateLimited"> {
  return {
    runId,
    unitId: r.unit_id,
    status: r.status,
    attempts: r.attempts,
    output: r.output,
    error: r.error,
    createdAt: new Date(r.created_at),
    callRequests: r.requests,
    callRetries: r.retries,
    callRateLimited: r.rate_limited,
  };
}

/** The progress columns of the runs row: the counts and the model calls of the ended units. */
export function progressColumns(p: Progress) {
  return {
    done: p.done,
    failed: p.failed,
    callRequests: p.calls.requests,
    callRetries: p.calls.retries,
    callRateLimited: p.calls.rateLimited,
  };
}

export class Outbox {
  /** Counted from the table once per instance, then kept up to date by `record`. */
  private counted: Progress | undefined;
  /** D1 lacks a sample or a count. Starts true so that a fresh instance flushes once. */
  private dirty = true;
  private flushing: Promise<void> | null = null;
  /** Mirror of the stored "flushed": D1 holds every sample up to this outbox row. */
  private flushedSeq: number | undefined;

  private readonly store: Store;
  private readonly env: () => Env;

  constructor(store: Store, env: () => Env) {
    this.store = store;
    this.env = env;
    // One row per ended unit (the unit's move to `ended` lets only one through), so `seq` only grows
    // until the run ends and the outbox is emptied.
    store.sql.exec(`CREATE TABLE IF NOT EXISTS outbox (
      seq INTEGER PRIMARY KEY, unit_id TEXT NOT NULL, status TEXT NOT NULL,
      attempts INTEGER NOT NULL, output TEXT, error TEXT, created_at INTEGER NOT NULL)`);
    addColumns(store.sql, "outbox", { requests: "INTEGER", retries: "INTEGER", rate_limited: "INTEGER" });
  }

  /** The ended units so far and their model calls (every attempt's). */
  progress(): Progress {
    if (this.counted) return this.counted;
    const counts = this.store.sql
      .exec<{
        status: string;
        n: number;
        requests: number | null;
        retries: number | null;
        rate_limited: number | null;
      }>(
        "SELECT status, count(*) AS n, sum(requests) AS requests, sum(retries) AS retries, sum(rate_limited) AS rate_limited FROM outbox GROUP BY status",
      )
      .toArray();
    const calls = noCalls();
    for (const c of counts)
      addCalls(calls, { requests: c.requests ?? 0, retries: c.retries ?? 0, rateLimited: c.rate_limited ?? 0 });
    return (this.counted = {
      done: counts.find((c) => c.status === "succeeded")?.n ?? 0,
      failed: counts.find((c) => c.status === "failed")?.n ?? 0,
      calls,
    });
  }

  /** Something waits to be copied to D1. */
  get flushDue(): boolean {
    return this.dirty;
  }

  /** A unit's sample when the unit itself could not produce one: the evaluator's failure output and the reason. */
  failedSample(unitId: string, reason: string): UnitSample {
    const output = evaluators.get(this.store.settings()!.evaluator).failureOutput(this.store.config(), unitId, reason);
    return { status: "failed", output: output == null ? null : JSON.stringify(output), error: reason };
  }

  /**
   * Records a unit's sample, with the model calls of all its attempts (`earlier`, from the unit's
   * row, and the last one's from the sample), and counts it; returns the status it was recorded with.
   */
  record(unitId: string, attempts: number, earlier: ModelCalls, sample: UnitSample): "succeeded" | "failed" {
    const bytes = sampleBytes(sample);
    // Stored as it is, a larger one would be refused by D1 on every flush: kept as a failed sample that says why.
    const s =
      bytes > LIMITS.sampleBytes
        ? this.failedSample(
            unitId,
            `the unit's output is ${bytes} bytes, over the ${LIMITS.sampleBytes}-byte limit of a stored sample`,
          )
        : sample;
    const calls = addCalls({ ...earlier }, sample.calls);
    const progress = this.progress();
    addCalls(progress.calls, calls);
    this.store.sql.exec(
      "INSERT INTO outbox (unit_id, status, attempts, output, error, created_at, requests, retries, rate_limited) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      unitId,
      s.status,
      attempts,
      s.output,
      s.error,
      Date.now(),
      calls.requests,
      calls.retries,
      calls.rateLimited,
    );
    if (s.status === "succeeded") progress.done++;
    else progress.failed++;
    this.dirty = true;
    return s.status;
  }

  /**
   * Writes the samples recorded so far and then the progress counters to D1. A failure (D1 down)
   * leaves both for the next alarm, which `flushDue` keeps planned: the run goes on meanwhile, and
   * an alarm that threw could be retried out of existence, leaving the run stuck.
   */
  async flushProgress(): Promise<void> {
    // Cleared first: a unit that ends during the writes below sets it again.
    this.dirty = false;
    try {
      // The counts as they are now, written once D1 holds every sample they count: D1's progress
      // never counts a unit whose sample it does not have yet.
      const counts = progressColumns(this.progress());
      await this.flushRecorded();
      await updateRun(openDb(this.env().DB), this.store.settings()!.runId, {
        ...counts,
        sampleBytes: this.flushedBytes(),
      });
    } catch (err) {
      this.dirty = true;
      console.error(
        JSON.stringify({
          level: "warn",
          run_id: this.store.settings()?.runId,
          error: `progress flush failed, retried at the next alarm: ${String(err)}`,
        }),
      );
    }
  }

  /** For a finish: D1 gets every sample, then the progress counting them all. Throws what D1 throws. */
  async flushAll(): Promise<void> {
    await this.flushRecorded();
    await updateRun(openDb(this.env().DB), this.store.settings()!.runId, {
      ...progressColumns(this.progress()),
      sampleBytes: this.flushedBytes(),
    });
  }

  /**
   * Every sample, in the order recorded, for the aggregate: read AGGREGATE_ROWS at a time by `seq`, so
   * only one page of outputs is in memory however large the run. Pages rather than one open cursor:
   * an aggregate awaits (WebCrypto, embeddings) between rows, and each page is a complete read. Each
   * iteration starts again from the first sample.
   */
  samples(): Iterable<OutboxSample> {
    const sql = this.store.sql;
    return {
      *[Symbol.iterator]() {
        for (let after = 0; ; ) {
          const page = sql
            .exec<OutboxSample & { seq: number }>(
              "SELECT seq, unit_id, status, output, error FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
              after,
              AGGREGATE_ROWS,
            )
            .toArray();
          for (const row of page) yield row;
          if (page.length < AGGREGATE_ROWS) return;
          after = page[page.length - 1].seq;
        }
      },
    };
  }

  /** The error of the first sample recorded with one, or null. */
  firstError(): string | null {
    return (
      this.store.sql
        .exec<{ error: string }>("SELECT error FROM outbox WHERE error IS NOT NULL ORDER BY seq LIMIT 1")
        .toArray()[0]?.error ?? null
    );
  }

  /** The run ended: D1 holds the samples from here on. */
  clear(): void {
    this.store.sql.exec("DELETE FROM outbox");
  }

  private flushed(): number {
    return (this.flushedSeq ??= this.store.get<number>("flushed") ?? 0);
  }

  /** UTF-8 bytes of the output and error text D1 holds of this run's samples (for `GET /v1/usage`). */
  private flushedBytes(): number {
    return this.store.get<number>("flushedBytes") ?? 0;
  }

  /**
   * Flushes until D1 holds every sample recorded so far (a flush already under way may have read
   * the outbox before the latest were recorded, so one call may not be enough).
   */
  private async flushRecorded(): Promise<void> {
    const last = this.store.sql.exec<{ s: number | null }>("SELECT max(seq) AS s FROM outbox").one().s ?? 0;
    while (this.flushed() < last) await this.flushSamples();
  }

  /**
   * Copies recorded samples to D1 in batches rather than one D1 write per unit. The mark moves only
   * once D1 has a batch; a batch written twice (an eviction between the write and the mark) changes
   * nothing in D1.
   */
  private flushSamples(): Promise<void> {
    return (this.flushing ??= this.flushOnce().finally(() => (this.flushing = null)));
  }

  private async flushOnce(): Promise<void> {
    const settings = this.store.settings();
    if (!settings) return;
    const db = openDb(this.env().DB);
    for (;;) {
      const rows = this.store.sql
        .exec<OutboxRow>(
          "SELECT seq, unit_id, status, attempts, output, error, created_at, requests, retries, rate_limited FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
          this.flushed(),
          FLUSH_ROWS,
        )
        .toArray();
      if (rows.length === 0) return;
      await insertSamples(
        db,
        rows.map((r) => sampleInsert(settings.runId, r)),
      );
      // Counted with the mark, in the same commit: a batch written twice (see above) counts once.
      const bytes = rows.reduce((n, r) => n + utf8Bytes(r.output ?? "") + utf8Bytes(r.error ?? ""), 0);
      this.store.put("flushedBytes", this.flushedBytes() + bytes);
      this.store.put("flushed", (this.flushedSeq = rows[rows.length - 1].seq));
      if (rows.length < FLUSH_ROWS) return;
    }
  }
}
