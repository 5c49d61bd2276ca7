import { DurableObject } from "cloudflare:workers";
import { openDb } from "../db/client.ts";
import { getRunById, insertSamples, updateRun } from "../db/runs.ts";
import type { RunStatus } from "../db/schema.ts";
import { evaluatorFor } from "../evaluators/registry.ts";
import { storedSample, type AggregateContext, type EvaluatorName } from "../evaluators/types.ts";
import { createOpenAIEmbeddingClient } from "../providers/index.ts";
import { decryptSecret } from "../secrets.ts";
import { createRun } from "../runs/create.ts";
import type { StoredSample } from "../evaluators/types.ts";
import { laneName, type UnitMessage } from "../runs/messages.ts";
import { enqueueRunEvent } from "../webhooks/enqueue.ts";
import { LIMITS } from "../limits.ts";

export type StartRun = {
  runId: string;
  tenantId: string;
  evaluator: string;
  config: unknown;
  unitIds: string[];
  concurrency: number;
  /** How long a dispatched unit may stay silent before it is dispatched again. */
  leaseMs: number;
  maxAttempts?: number;
  /** The provider API key, encrypted with SECRETS_KEY; deleted when the run ends. */
  secretEnc: string | null;
};

type Meta = {
  runId: string;
  tenantId: string;
  evaluator: string;
  concurrency: number;
  leaseMs: number;
  maxAttempts: number;
  status: RunStatus;
  total: number;
  /** Stored when the status changes; while the run goes, kept in memory and counted from the outbox (see meta()). */
  done: number;
  failed: number;
};

/** Where a unit is in its life at the coordinator. */
export type UnitState = "pending" | "inflight" | "ended";

/** A unit as the coordinator holds it (see `RunCoordinator.units`); times in epoch ms. */
export type UnitView = { id: string; state: UnitState; attempts: number; lane: number | null; leaseUntil: number | null; readyAt: number };

export type UnitContextReply = { tenantId: string; evaluator: string; config: unknown; secretEnc: string | null };

/** A unit's sample as its lane reports it: the output already JSON text, so exact number lexemes survive the RPC. */
export type UnitSample = { status: "succeeded" | "failed"; output: string | null; error: string | null };

/** How long a finish (aggregate included) may take before the alarm assumes it was lost and finishes again. */
const FINISH_WATCHDOG_MS = 10 * 60_000;
/** How long an aggregate may wait on model calls (SS embeddings) before they are stopped and its fallback applies. */
const AGGREGATE_CALLS_BUDGET_MS = 5 * 60_000;

/** Samples and progress counters reach D1 at most this often while a run is going (and always when it ends). */
const PROGRESS_FLUSH_MS = 250;
/** Samples per read of the outbox. */
const FLUSH_ROWS = 200;

/** The UTF-8 size of a sample's text, counted exactly only when it could be near the limit (else its length, a lower bound). */
function sampleBytes(s: UnitSample): number {
  const chars = (s.output?.length ?? 0) + (s.error?.length ?? 0);
  if (chars * 3 <= LIMITS.sampleBytes) return chars;
  const encoder = new TextEncoder();
  return encoder.encode(s.output ?? "").length + encoder.encode(s.error ?? "").length;
}

function withNextRun(result: unknown, nextRunId: string): unknown {
  return { ...(result as Record<string, unknown>), next_run_id: nextRunId };
}

/** Backoff before a failed unit is tried again: 1 s, 2 s, 4 s, … capped at 30 s. */
export function unitRetryDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** (attempt - 1));
}

/**
 * One per run. It owns what is in flight: every unit is a row of its SQLite storage with a state
 * (pending → inflight → ended), an attempt count, the lane running it, a lease deadline and a ready
 * time. Nothing lives only in memory, so after an eviction the alarm rebuilds everything from
 * storage: expired leases are dispatched again and free lanes refilled.
 *
 * A run has `concurrency` lanes, each a UnitRunner. When a lane reports a unit's end, the reply hands
 * it the next unit at once, so the run keeps `concurrency` units in flight with no waves and no
 * Queue hop between units. The Queue carries the first unit of each lane and every re-dispatch
 * (expired lease, retry after backoff), which is what makes a lost runner recoverable.
 */
export class RunCoordinator extends DurableObject<Env> {
  private readonly sql = this.ctx.storage.sql;
  // Memory mirrors of what storage holds, for the per-unit path; after an eviction they start empty
  // and are read again. `dirty` starts true so a fresh instance flushes progress once.
  private metaCache: Meta | undefined;
  private dirty = true;
  /** When the alarm is set for, null when none is, undefined when not known (read from storage). */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS units (
      id TEXT PRIMARY KEY, ord INTEGER NOT NULL, state TEXT NOT NULL, lane INTEGER,
      attempts INTEGER NOT NULL DEFAULT 0, lease_until INTEGER, ready_at INTEGER NOT NULL DEFAULT 0)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)`);
    // Samples recorded with their unit's end: copied to D1 in batches (see flushSamples) and kept
    // here until the run ends, for its aggregate. One row per ended unit (the unit's state check
    // lets only one through), so `seq` only grows until the run ends and the outbox is emptied.
    this.sql.exec(`CREATE TABLE IF NOT EXISTS outbox (
      seq INTEGER PRIMARY KEY, unit_id TEXT NOT NULL, status TEXT NOT NULL,
      attempts INTEGER NOT NULL, output TEXT, error TEXT, created_at INTEGER NOT NULL)`);
    // Every lane's report looks up the next pending unit in plan order, and every alarm the leases
    // in flight: without these, each is a scan of the whole plan. Partial, so a unit that ends
    // leaves both and a report rewrites few index pages (each page is a write of its own).
    this.sql.exec(`CREATE INDEX IF NOT EXISTS units_pending ON units (ord) WHERE state = 'pending'`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS units_inflight ON units (lease_until) WHERE state = 'inflight'`);
  }

  private get<T>(k: string): T | undefined {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = ?", k).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : undefined;
  }

  private put(k: string, v: unknown): void {
    this.sql.exec("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", k, JSON.stringify(v));
    if (k === "meta") this.metaCache = v as Meta;
  }

  private meta(): Meta | undefined {
    if (this.metaCache) return this.metaCache;
    const meta = this.get<Meta>("meta");
    if (meta?.status === "running") {
      // A running run's counts are not stored with each report: the outbox holds the sample of
      // every unit that ended until the run ends, so they are counted from it after an eviction.
      const counts = this.sql.exec<{ status: string; n: number }>("SELECT status, count(*) AS n FROM outbox GROUP BY status").toArray();
      meta.done = counts.find((c) => c.status === "succeeded")?.n ?? 0;
      meta.failed = counts.find((c) => c.status === "failed")?.n ?? 0;
    }
    return (this.metaCache = meta);
  }

  private async setAlarm(at: number): Promise<void> {
    await this.ctx.storage.setAlarm(at);
    this.alarmAt = at;
  }

  private async deleteAlarm(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    this.alarmAt = null;
  }

  /** Starts the run once; a repeated call (a retried request) changes nothing. */
  async start(init: StartRun): Promise<void> {
    if (this.meta()) return;
    const meta: Meta = {
      runId: init.runId,
      tenantId: init.tenantId,
      evaluator: init.evaluator,
      concurrency: init.concurrency,
      leaseMs: init.leaseMs,
      maxAttempts: init.maxAttempts ?? 3,
      status: "running",
      total: init.unitIds.length,
      done: 0,
      failed: 0,
    };
    this.ctx.storage.transactionSync(() => {
      // One statement for the whole plan (up to 10,000 units), each id at its index.
      this.sql.exec("INSERT INTO units (id, ord, state) SELECT value, key, 'pending' FROM json_each(?)", JSON.stringify(init.unitIds));
      this.put("config", init.config);
      this.put("secret", init.secretEnc);
      this.put("meta", meta);
    });
    await updateRun(openDb(this.env.DB), init.runId, { status: "running", startedAt: new Date() });
    if (meta.total === 0) return this.finish();
    await this.dispatch();
  }

  /** What a UnitRunner needs to execute a unit, or null when the unit should not run (stale attempt, run ended). */
  async unitContext(unitId: string, attempt: number): Promise<UnitContextReply | null> {
    const meta = this.meta();
    if (!meta || meta.status !== "running") return null;
    const unit = this.unit(unitId);
    if (!unit || unit.state !== "inflight" || unit.attempts !== attempt) return null;
    return {
      tenantId: meta.tenantId,
      evaluator: meta.evaluator,
      config: this.get("config"),
      secretEnc: this.get<string | null>("secret") ?? null,
    };
  }

  /** The unit in flight on `lane`, for a lane resuming after an eviction (its later units are known only here). */
  async laneUnit(lane: number): Promise<UnitMessage | null> {
    const meta = this.meta();
    if (!meta || meta.status !== "running") return null;
    const unit = this.sql
      // An expired lease is the alarm's to re-dispatch, not the lane's to resume.
      .exec<{ id: string; attempts: number }>(
        "SELECT id, attempts FROM units WHERE state = 'inflight' AND lane = ? AND lease_until > ? ORDER BY lease_until DESC LIMIT 1",
        lane,
        Date.now(),
      )
      .toArray()[0];
    return unit ? { kind: "unit", runId: meta.runId, unitId: unit.id, attempt: unit.attempts, lane } : null;
  }

  /**
   * A unit ended: its sample is recorded and the unit ended in one write, so a sample is never lost
   * nor counted twice. Returns the next unit for the same lane, if one is ready. Duplicate and stale
   * reports are ignored (and get no next unit).
   */
  async unitDone(unitId: string, attempt: number, sample: UnitSample): Promise<UnitMessage | null> {
    await this.nextTurn();
    const meta = this.meta();
    const unit = this.unit(unitId);
    if (!meta || meta.status !== "running" || !unit || unit.state !== "inflight" || unit.attempts !== attempt) return null;
    this.end(meta, unitId, this.record(meta, unitId, attempt, sample));
    return this.afterUnit(meta, unit.lane);
  }

  /**
   * A unit's attempt threw: it is tried again after a backoff, or recorded as a failed sample once
   * its attempts run out. Returns the next unit for the lane, like `unitDone`.
   */
  async unitFailed(unitId: string, attempt: number, error: string): Promise<UnitMessage | null> {
    const meta = this.meta();
    const unit = this.unit(unitId);
    if (!meta || meta.status !== "running" || !unit || unit.state !== "inflight" || unit.attempts !== attempt) return null;
    await this.failAttempt(meta, unitId, attempt, error);
    return this.afterUnit(meta, unit.lane);
  }

  private turn: Promise<void> | null = null;

  /**
   * Reports that arrive while this object is busy are applied together in the next turn of its
   * event loop, so their writes share one storage commit instead of one each.
   */
  private nextTurn(): Promise<void> {
    return (this.turn ??= new Promise<void>((resolve) =>
      setTimeout(() => {
        this.turn = null;
        resolve();
      }, 0),
    ));
  }

  /**
   * Cancels the run: no unit is dispatched again, and every in-flight UnitRunner is told to abort
   * before this returns, so no new model call starts afterwards. Samples already written are kept.
   */
  async cancel(): Promise<RunStatus> {
    const meta = this.meta();
    if (!meta) return "canceled";
    if (meta.status !== "running") return meta.status;
    meta.status = "canceled";
    this.put("meta", meta);
    const lanes = this.sql.exec<{ lane: number }>("SELECT DISTINCT lane FROM units WHERE state = 'inflight'").toArray();
    await Promise.all(lanes.map(({ lane }) => this.env.UNITS.getByName(laneName(meta.runId, lane)).abort()));
    // A finish already under way (the aggregate calling models) stops its calls and ends the run canceled.
    this.aggregateCalls?.abort(new Error("the run was canceled, and no model call is made after cancel"));
    await this.finish();
    return "canceled";
  }

  /** Lease expiry, retry backoffs, refills and progress flushes; also what resumes a run after an eviction. */
  async alarm(): Promise<void> {
    this.alarmAt = null;
    const meta = this.meta();
    if (!meta || this.get<boolean>("finished")) return;
    // A canceled run whose finish was lost (the watchdog): finish it again.
    if (meta.status !== "running") return this.finish();
    const now = Date.now();
    const expired = this.sql
      .exec<{ id: string; attempts: number }>("SELECT id, attempts FROM units WHERE state = 'inflight' AND lease_until <= ?", now)
      .toArray();
    for (const u of expired) {
      await this.failAttempt(meta, u.id, u.attempts, `unit did not report within its lease of ${meta.leaseMs} ms`);
    }
    // When every unit has ended, the finish flushes everything itself (after arming its watchdog).
    if (this.dirty && meta.done + meta.failed < meta.total) await this.flushProgress(meta);
    await this.afterUnit(meta, null);
  }

  /**
   * Writes the samples recorded so far and then the progress counters to D1. A failure (D1 down)
   * leaves both for the next alarm, which the dirty flag keeps due: the run goes on meanwhile, and
   * an alarm that threw could be retried out of existence, leaving the run stuck.
   */
  private async flushProgress(meta: Meta): Promise<void> {
    // Cleared first: a unit that ends during the writes below sets it again.
    this.dirty = false;
    try {
      // The counts as they are now, written once D1 holds every sample they count: D1's progress
      // never counts a unit whose sample it does not have yet.
      const counts = { done: meta.done, failed: meta.failed };
      await this.flushRecorded();
      await updateRun(openDb(this.env.DB), meta.runId, counts);
    } catch (err) {
      this.dirty = true;
      console.error(JSON.stringify({ level: "warn", run_id: meta.runId, error: `progress flush failed, retried at the next alarm: ${String(err)}` }));
    }
  }

  /** For tests and operators: the coordinator's own view. */
  async state() {
    const meta = this.meta();
    const counts = this.sql.exec<{ state: string; n: number }>("SELECT state, count(*) AS n FROM units GROUP BY state").toArray();
    return { meta, units: Object.fromEntries(counts.map((c) => [c.state, c.n])), hasSecret: this.get("secret") != null };
  }

  /**
   * For operators and tests: the run's units in `state` (every unit when omitted), in plan order, at
   * most `limit`. Read-only: what storage holds now, so it is the same after an eviction.
   */
  async units({ state, limit = 100 }: { state?: UnitState; limit?: number } = {}): Promise<UnitView[]> {
    const columns = "id, state, attempts, lane, lease_until AS leaseUntil, ready_at AS readyAt";
    const rows = state
      ? this.sql.exec<UnitView>(`SELECT ${columns} FROM units WHERE state = ? ORDER BY ord LIMIT ?`, state, limit)
      : this.sql.exec<UnitView>(`SELECT ${columns} FROM units ORDER BY ord LIMIT ?`, limit);
    return rows.toArray();
  }

  private unit(id: string) {
    return this.sql
      .exec<{ id: string; state: string; attempts: number; lane: number }>("SELECT id, state, attempts, lane FROM units WHERE id = ?", id)
      .toArray()[0];
  }

  private end(meta: Meta, unitId: string, status: "succeeded" | "failed"): void {
    this.sql.exec("UPDATE units SET state = 'ended', lease_until = NULL WHERE id = ?", unitId);
    if (status === "succeeded") meta.done++;
    else meta.failed++;
    this.dirty = true;
  }

  private async failAttempt(meta: Meta, unitId: string, attempt: number, error: string): Promise<void> {
    if (attempt < meta.maxAttempts) {
      this.sql.exec(
        "UPDATE units SET state = 'pending', lease_until = NULL, ready_at = ? WHERE id = ?",
        Date.now() + unitRetryDelayMs(attempt),
        unitId,
      );
      return;
    }
    // Out of attempts: the failure itself becomes the unit's sample, so nothing is silently dropped.
    const reason = `gave up after ${attempt} attempts: ${error}`;
    this.end(meta, unitId, this.record(meta, unitId, attempt, this.failedSample(meta, unitId, reason)));
  }

  /** A unit's sample when the unit itself could not produce one: the evaluator's failure output and the reason. */
  private failedSample(meta: Meta, unitId: string, reason: string): UnitSample {
    const output = evaluatorFor(meta.evaluator).failureOutput(this.get("config"), unitId, reason);
    return { status: "failed", output: output == null ? null : JSON.stringify(output), error: reason };
  }

  /** Records a unit's sample in the outbox; returns the status it was recorded with. */
  private record(meta: Meta, unitId: string, attempts: number, sample: UnitSample): "succeeded" | "failed" {
    const bytes = sampleBytes(sample);
    // Stored as it is, a larger one would be refused by D1 on every flush: kept as a failed sample that says why.
    const s =
      bytes > LIMITS.sampleBytes
        ? this.failedSample(meta, unitId, `the unit's output is ${bytes} bytes, over the ${LIMITS.sampleBytes}-byte limit of a stored sample`)
        : sample;
    this.sql.exec(
      "INSERT INTO outbox (unit_id, status, attempts, output, error, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      unitId,
      s.status,
      attempts,
      s.output,
      s.error,
      Date.now(),
    );
    return s.status;
  }

  private flushing: Promise<void> | null = null;
  /** Mirror of the stored "flushed": D1 holds every sample up to this outbox row. */
  private flushedSeq: number | undefined;

  private flushed(): number {
    return (this.flushedSeq ??= this.get<number>("flushed") ?? 0);
  }

  /**
   * Copies recorded samples to D1 in batches (with the progress flush, and before a finish), rather
   * than one D1 write per unit. The mark moves only once D1 has a batch; a batch written twice (an
   * eviction between the write and the mark) changes nothing in D1.
   */
  private flushSamples(): Promise<void> {
    return (this.flushing ??= this.flushOnce().finally(() => (this.flushing = null)));
  }

  /**
   * Flushes until D1 holds every sample recorded so far (a flush already under way may have read
   * the outbox before the latest were recorded, so one call may not be enough).
   */
  private async flushRecorded(): Promise<void> {
    const last = this.sql.exec<{ s: number | null }>("SELECT max(seq) AS s FROM outbox").one().s ?? 0;
    while (this.flushed() < last) await this.flushSamples();
  }

  private async flushOnce(): Promise<void> {
    const meta = this.meta();
    if (!meta) return;
    const db = openDb(this.env.DB);
    for (;;) {
      const rows = this.sql
        .exec<{ seq: number; unit_id: string; status: "succeeded" | "failed"; attempts: number; output: string | null; error: string | null; created_at: number }>(
          "SELECT seq, unit_id, status, attempts, output, error, created_at FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
          this.flushed(),
          FLUSH_ROWS,
        )
        .toArray();
      if (rows.length === 0) return;
      await insertSamples(
        db,
        rows.map((r) => ({ runId: meta.runId, unitId: r.unit_id, status: r.status, attempts: r.attempts, output: r.output, error: r.error, createdAt: new Date(r.created_at) })),
      );
      this.put("flushed", (this.flushedSeq = rows[rows.length - 1].seq));
      if (rows.length < FLUSH_ROWS) return;
    }
  }

  /**
   * After a unit ends on `lane` (null: no lane is waiting): finishes the run when every unit has
   * ended, otherwise hands `lane` its next ready unit and dispatches the other free lanes.
   */
  private async afterUnit(meta: Meta, lane: number | null): Promise<UnitMessage | null> {
    if (meta.status !== "running") return null;
    if (meta.done + meta.failed >= meta.total) {
      // A lane's report returns at once: the aggregate (which may call models) runs in the alarm.
      if (lane === null) await this.finish();
      else await this.setAlarm(Date.now());
      return null;
    }
    const next = lane === null ? null : (this.assign([lane])[0] ?? null);
    if (!next) {
      await this.dispatch();
      return null;
    }
    // The common case, a lane taking its next unit, leaves no lane idle and moves no deadline
    // earlier (a unit ended, and the new lease is the latest): an alarm already due within the
    // progress flush covers everything, and it re-arms itself when it runs.
    const now = Date.now();
    if (this.alarmAt == null || this.alarmAt > now + PROGRESS_FLUSH_MS) await this.armAlarm();
    return next;
  }

  /** Marks ready pending units in flight on the given lanes (one each, in plan order). */
  private assign(lanes: number[]): UnitMessage[] {
    const meta = this.meta()!;
    const now = Date.now();
    const ready = this.sql
      .exec<{ id: string; attempts: number }>(
        "SELECT id, attempts FROM units WHERE state = 'pending' AND ready_at <= ? ORDER BY ord LIMIT ?",
        now,
        lanes.length,
      )
      .toArray();
    return ready.map((u, i) => {
      this.sql.exec(
        "UPDATE units SET state = 'inflight', attempts = attempts + 1, lane = ?, lease_until = ? WHERE id = ?",
        lanes[i],
        now + meta.leaseMs,
        u.id,
      );
      return { kind: "unit", runId: meta.runId, unitId: u.id, attempt: u.attempts + 1, lane: lanes[i] };
    });
  }

  /** Gives every idle lane a ready unit through the Queue, then arms the alarm for the next deadline. */
  private async dispatch(): Promise<void> {
    const meta = this.meta();
    if (!meta || meta.status !== "running") return;
    const busy = new Set(
      this.sql.exec<{ lane: number }>("SELECT lane FROM units WHERE state = 'inflight'").toArray().map((r) => r.lane),
    );
    const idle: number[] = [];
    for (let lane = 0; lane < meta.concurrency; lane++) if (!busy.has(lane)) idle.push(lane);
    const messages = this.assign(idle).map((body) => ({ body, contentType: "json" as const }));
    // If sending fails, the leases stay set: the alarm re-dispatches these units when they expire.
    for (let i = 0; i < messages.length; i += 100) await this.env.UNIT_QUEUE.sendBatch(messages.slice(i, i + 100));
    await this.armAlarm();
  }

  private async armAlarm(): Promise<void> {
    // Deadlines: the earliest lease, and the end of the earliest retry backoff. Pending units that
    // are already ready need no wake-up: a lane takes them the moment it frees (waking for them
    // would spin the alarm every few milliseconds for the whole run).
    const next = this.sql
      .exec<{ t: number | null }>(
        `SELECT min(t) AS t FROM (
           SELECT min(lease_until) AS t FROM units WHERE state = 'inflight'
           UNION ALL SELECT min(ready_at) AS t FROM units WHERE state = 'pending' AND ready_at > ?)`,
        Date.now(),
      )
      .one().t;
    const flush = this.dirty ? Date.now() + PROGRESS_FLUSH_MS : null;
    const at = next === null ? flush : flush === null ? next : Math.min(next, flush);
    const current = this.alarmAt === undefined ? (this.alarmAt = await this.ctx.storage.getAlarm()) : this.alarmAt;
    if (at === null) {
      if (current !== null) await this.deleteAlarm();
    } else if (current === null || current > at || current < Date.now()) {
      await this.setAlarm(Math.max(at, Date.now() + 10));
    }
  }

  /**
   * Model access for the aggregate. The run's secrets are decrypted only for a run still going (a
   * canceled one makes no model call), and a secret that cannot be decrypted is simply absent, so the
   * backend's call fails and its fallback applies rather than the whole run.
   */
  private async aggregateContext(canceled: boolean, signal: AbortSignal): Promise<AggregateContext> {
    const secretEnc = this.get<string | null>("secret") ?? null;
    let secrets: Record<string, string> = {};
    if (secretEnc && !canceled) {
      try {
        secrets = JSON.parse(await decryptSecret(this.env.SECRETS_KEY, secretEnc)) as Record<string, string>;
      } catch {
        secrets = {};
      }
    }
    return {
      canceled,
      signal,
      embeddings: ({ baseUrl, apiKey, timeoutMs }) => createOpenAIEmbeddingClient({ baseURL: baseUrl, apiKey, timeoutMs }),
      secret: (name) => secrets[name],
    };
  }

  private finishing: Promise<void> | null = null;
  /** Stops the model calls of an aggregate under way (cancel, or its time budget). */
  private aggregateCalls: AbortController | null = null;

  /** Aggregates what the samples hold, stores the result and final state, drops the secret, and notifies. */
  private finish(): Promise<void> {
    // One finish at a time: the watchdog alarm or a cancel may come while a long aggregate runs here.
    return (this.finishing ??= this.finishOnce().finally(() => (this.finishing = null)));
  }

  private async finishOnce(): Promise<void> {
    if (this.get<boolean>("finished")) return;
    const started = this.meta()!;
    // An aggregate may call models (SS embeddings); if this object is evicted meanwhile, the alarm
    // finishes again. The aggregate's calls stop well before this fires.
    await this.setAlarm(Date.now() + FINISH_WATCHDOG_MS);
    // D1 must hold every sample before it shows the run ended; the aggregate reads them here meanwhile.
    const flushed = this.flushRecorded();
    // Not left unhandled if the aggregate throws first; awaited below.
    flushed.catch(() => {});
    const db = openDb(this.env.DB);
    const evaluator = evaluatorFor(started.evaluator);
    const samples: StoredSample[] = this.sql
      .exec<{ unit_id: string; status: "succeeded" | "failed"; output: string | null; error: string | null }>("SELECT unit_id, status, output, error FROM outbox ORDER BY seq")
      .toArray()
      .map((r) => storedSample(evaluator, { unitId: r.unit_id, status: r.status, output: r.output, error: r.error }));
    let result: unknown = null;
    let error: string | null = null;
    const calls = (this.aggregateCalls = new AbortController());
    const budget = setTimeout(
      () => calls.abort(new Error(`the aggregate's model calls took over ${AGGREGATE_CALLS_BUDGET_MS / 60_000} minutes and were stopped`)),
      AGGREGATE_CALLS_BUDGET_MS,
    );
    try {
      result = await evaluator.aggregate(this.get("config"), samples, await this.aggregateContext(started.status === "canceled", calls.signal));
    } catch (err) {
      error = `aggregation failed: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      clearTimeout(budget);
      this.aggregateCalls = null;
    }
    // Read again: a cancel may have come in while the aggregate ran.
    const meta = this.meta()!;
    let status: RunStatus = meta.status === "canceled" ? "canceled" : error ? "failed" : "succeeded";
    if (status === "succeeded" && meta.total > 0 && meta.failed === meta.total) {
      status = "failed";
      error = `all ${meta.total} units failed; first error: ${samples.find((s) => s.error)?.error ?? "unknown"}`;
    }
    let nextRunId: string | null = null;
    if (status === "succeeded" && evaluator.followUp) {
      try {
        const follow = await evaluator.followUp(this.get("config"), result);
        if (follow?.next) {
          const run = await getRunById(db, meta.runId);
          const { run: next } = await createRun(this.env, db, meta.tenantId, {
            evaluator: meta.evaluator as EvaluatorName,
            config: follow.next.config,
            publicConfig: follow.next.publicConfig,
            secretEnc: this.get<string | null>("secret") ?? null,
            webhookUrl: run?.webhookUrl ?? undefined,
            concurrency: meta.concurrency,
            leaseMs: meta.leaseMs,
            // If this finish is interrupted and runs again, the same follow-up comes back, not a second one.
            body: { follow_up_of: meta.runId },
            idempotencyKey: `follow-up:${meta.runId}`,
          });
          nextRunId = next.id;
        }
        if (follow) result = nextRunId ? withNextRun(follow.result, nextRunId) : follow.result;
      } catch (err) {
        status = "failed";
        error = `follow-up failed: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    // D1 and the event first, then this object's own final state: if anything here fails or the
    // object is evicted, the watchdog alarm runs the whole finish again (the D1 write is idempotent,
    // and the event keeps one webhook-id per run, so a receiver can drop a repeat).
    await flushed;
    await updateRun(db, meta.runId, {
      status,
      result,
      error,
      done: meta.done,
      failed: meta.failed,
      finishedAt: new Date(),
    });
    // A run that hands over to a follow-up is not the end of the work: only the last one notifies.
    const run = await getRunById(db, meta.runId);
    if (run && !nextRunId) await enqueueRunEvent(this.env, run, `msg_final_${meta.runId}`);
    meta.status = status;
    this.put("meta", meta);
    this.put("secret", null);
    this.put("finished", true);
    // D1 holds the samples from here on.
    this.sql.exec("DELETE FROM outbox");
    await this.deleteAlarm();
  }
}
