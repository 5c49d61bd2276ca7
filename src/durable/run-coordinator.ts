import { runRedactor } from "../runs/redact.ts";
import { DurableObject } from "cloudflare:workers";
import { openDb } from "../db/client.ts";
import { getRunById, insertSamples, settleRun, updateRun, type SampleInsert } from "../db/runs.ts";
import type { RunStatus, samples } from "../db/schema.ts";
import { evaluatorFor } from "../evaluators/registry.ts";
import { storedSample, type AggregateContext, type EvaluatorName } from "../evaluators/types.ts";
import { createOpenAIEmbeddingClient } from "../providers/index.ts";
import { loopbackAllowed } from "../net/destination.ts";
import { addCalls, CallTally, noCalls, type ModelCalls } from "./model-calls.ts";
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
  /** The model calls of the ended units, counted like `done` (absent in metas stored before calls were counted). */
  calls?: ModelCalls;
};

/** Where a unit is in its life at the coordinator. */
export type UnitState = "pending" | "inflight" | "ended";

/**
 * A unit as the coordinator holds it (see `RunCoordinator.units`); times in epoch ms. `started`: its
 * lane has started the attempt in flight (until then `leaseUntil` is the short start deadline).
 */
export type UnitView = {
  id: string;
  state: UnitState;
  attempts: number;
  lane: number | null;
  leaseUntil: number | null;
  readyAt: number;
  started: boolean;
};

export type UnitContextReply = { tenantId: string; evaluator: string; config: unknown; secretEnc: string | null };

/**
 * A unit's sample as its lane reports it: the output already JSON text, so exact number lexemes
 * survive the RPC, and the model calls of this attempt (the lane counts them; see model-calls.ts).
 */
export type UnitSample = { status: "succeeded" | "failed"; output: string | null; error: string | null; calls?: ModelCalls };

/**
 * While a finish goes, the alarm is kept this far ahead (pushed forward every FINISH_BEAT_MS): if the
 * object crashes or is evicted mid-finish, the alarm fires within seconds of it and finishes again.
 * Alarms are durable and the runtime re-creates the object to run one, in production as locally.
 */
const FINISH_HEARTBEAT_MS = 5_000;
const FINISH_BEAT_MS = 2_000;
/**
 * A finish that throws (D1 down, an aggregate bug) is tried again with backoff (5 s doubling, at
 * most 5 minutes apart), this many times in all (about 20 minutes); then the run ends without a
 * result, saying why, rather than trying (and calling models in the aggregate) for ever.
 */
const MAX_FINISH_TRIES = 10;
const finishRetryMs = (tries: number) => Math.min(FINISH_HEARTBEAT_MS * 2 ** (tries - 1), 5 * 60_000);
/**
 * A unit handed to a lane through the Queue must be started by the lane (it asks for the unit's
 * context, see unitContext) within this, else its message is sent again: a message lost with the local
 * queue (a killed `wrangler dev`), or a failed send, costs seconds, not a lease. The wait doubles while
 * the unit stays unstarted, up to START_RECHECK_MAX_MS, and a unit not started within its whole lease
 * counts as a failed attempt, as a silent one does.
 */
const START_DEADLINE_MS = 5_000;
const START_RECHECK_MAX_MS = 60_000;
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

/** The units columns the coordinator reads for a unit (see `unit`). */
const UNIT_COLUMNS = "id, state, attempts, lane, started, requests, retries, rate_limited";
/** A unit's row: `requests`, `retries`, `rate_limited` are the model calls of its earlier attempts. */
type UnitRow = { id: string; state: string; attempts: number; lane: number; started: number; requests: number; retries: number; rate_limited: number };

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

/** An outbox row as D1 stores it (its model calls in the samples' call columns; null where they were not counted). */
function sampleInsert(runId: string, r: OutboxRow): SampleInsert & Pick<typeof samples.$inferInsert, "callRequests" | "callRetries" | "callRateLimited"> {
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
function progressColumns(meta: Pick<Meta, "done" | "failed" | "calls">) {
  const calls = meta.calls ?? noCalls();
  return { done: meta.done, failed: meta.failed, callRequests: calls.requests, callRetries: calls.retries, callRateLimited: calls.rateLimited };
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
    // `started`: the lane has started the attempt in flight; `dispatched_at`: when the attempt was
    // handed out; `requests`, `retries`, `rate_limited`: the model calls of its earlier attempts.
    this.sql.exec(`CREATE TABLE IF NOT EXISTS units (
      id TEXT PRIMARY KEY, ord INTEGER NOT NULL, state TEXT NOT NULL, lane INTEGER,
      attempts INTEGER NOT NULL DEFAULT 0, lease_until INTEGER, ready_at INTEGER NOT NULL DEFAULT 0)`);
    this.addColumns("units", {
      started: "INTEGER NOT NULL DEFAULT 1",
      dispatched_at: "INTEGER",
      requests: "INTEGER NOT NULL DEFAULT 0",
      retries: "INTEGER NOT NULL DEFAULT 0",
      rate_limited: "INTEGER NOT NULL DEFAULT 0",
    });
    this.sql.exec(`CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)`);
    // Samples recorded with their unit's end: copied to D1 in batches (see flushSamples) and kept
    // here until the run ends, for its aggregate. One row per ended unit (the unit's state check
    // lets only one through), so `seq` only grows until the run ends and the outbox is emptied.
    this.sql.exec(`CREATE TABLE IF NOT EXISTS outbox (
      seq INTEGER PRIMARY KEY, unit_id TEXT NOT NULL, status TEXT NOT NULL,
      attempts INTEGER NOT NULL, output TEXT, error TEXT, created_at INTEGER NOT NULL)`);
    this.addColumns("outbox", { requests: "INTEGER", retries: "INTEGER", rate_limited: "INTEGER" });
    // Every lane's report looks up the next pending unit in plan order, and every alarm the leases
    // in flight: without these, each is a scan of the whole plan. Partial, so a unit that ends
    // leaves both and a report rewrites few index pages (each page is a write of its own).
    this.sql.exec(`CREATE INDEX IF NOT EXISTS units_pending ON units (ord) WHERE state = 'pending'`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS units_inflight ON units (lease_until) WHERE state = 'inflight'`);
  }

  /**
   * Adds the columns a table lacks: an object created by an earlier version keeps its tables (and a
   * run going through a deploy its rows), so a new column is added here rather than in CREATE TABLE.
   */
  private addColumns(table: string, columns: Record<string, string>): void {
    const have = new Set(this.sql.exec<{ name: string }>(`PRAGMA table_info(${table})`).toArray().map((c) => c.name));
    for (const [name, type] of Object.entries(columns)) {
      if (!have.has(name)) this.sql.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
    }
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
      const counts = this.sql
        .exec<{ status: string; n: number; requests: number | null; retries: number | null; rate_limited: number | null }>(
          "SELECT status, count(*) AS n, sum(requests) AS requests, sum(retries) AS retries, sum(rate_limited) AS rate_limited FROM outbox GROUP BY status",
        )
        .toArray();
      meta.done = counts.find((c) => c.status === "succeeded")?.n ?? 0;
      meta.failed = counts.find((c) => c.status === "failed")?.n ?? 0;
      meta.calls = noCalls();
      for (const c of counts) addCalls(meta.calls, { requests: c.requests ?? 0, retries: c.retries ?? 0, rateLimited: c.rate_limited ?? 0 });
    }
    if (meta) meta.calls ??= noCalls();
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

  /**
   * Starts the run once; a repeated call (a retried request, a replay completing an interrupted one)
   * changes nothing, and neither does a start that arrives after the run was abandoned (canceled or
   * settled as lost before this object ever held it): a late start must not revive it.
   */
  async start(init: StartRun): Promise<void> {
    if (this.meta() || this.get<string>("abandoned")) return;
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
      calls: noCalls(),
    };
    this.ctx.storage.transactionSync(() => {
      // One statement for the whole plan (up to 10,000 units), each id at its index.
      this.sql.exec("INSERT INTO units (id, ord, state) SELECT value, key, 'pending' FROM json_each(?)", JSON.stringify(init.unitIds));
      this.put("config", init.config);
      this.put("secret", init.secretEnc);
      this.put("meta", meta);
      this.put("announced", false);
    });
    // From here the run is this object's, whatever happens to this call (the creating request takes
    // a coordinator that holds the run as started). The alarm, set with no await since the plan's
    // write and so committed with it, carries a start that crashes before its D1 write or its
    // dispatch on within seconds.
    await this.setAlarm(Date.now() + START_DEADLINE_MS);
    await this.announce(meta);
    if (meta.total === 0) return this.finish();
    await this.dispatch();
  }

  /**
   * Writes the run's `running` status to D1 once (the start does, or the alarm after a crash), and only
   * over `queued`: never over a final state written meanwhile.
   */
  private async announce(meta: Meta): Promise<void> {
    // Absent in objects started before it was stored: those announced in their start.
    if (this.get<boolean>("announced") !== false) return;
    await settleRun(openDb(this.env.DB), meta.runId, ["queued"], { status: "running", startedAt: new Date() });
    this.put("announced", true);
  }

  /**
   * Gives up a run this object never started (its start was lost or failed), so that a start arriving
   * later does nothing. True when it was abandoned here (the caller ends it in D1), false when this
   * object holds the run (it is the coordinator's to end).
   */
  async abandon(status: "failed" | "canceled"): Promise<boolean> {
    if (this.meta()) return false;
    if (!this.get<string>("abandoned")) this.put("abandoned", status);
    return true;
  }

  /**
   * What a UnitRunner needs to execute a unit, or null when the unit should not run (stale attempt,
   * run ended). A lane asks before it starts a unit the Queue handed it, so this is also the unit's
   * start: from here its full lease bounds it, no longer the start deadline.
   */
  async unitContext(unitId: string, attempt: number): Promise<UnitContextReply | null> {
    const meta = this.meta();
    if (!meta || meta.status !== "running") return null;
    const unit = this.unit(unitId);
    if (!unit || unit.state !== "inflight" || unit.attempts !== attempt) return null;
    if (!unit.started) this.sql.exec("UPDATE units SET started = 1, lease_until = ? WHERE id = ?", Date.now() + meta.leaseMs, unitId);
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
      // An expired lease is the alarm's to re-dispatch, not the lane's to resume; a unit not started
      // yet is the lane's whatever its start deadline (the lane starts it now, as a re-sent message would).
      .exec<{ id: string; attempts: number }>(
        "SELECT id, attempts FROM units WHERE state = 'inflight' AND lane = ? AND (started = 0 OR lease_until > ?) ORDER BY lease_until DESC LIMIT 1",
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
    this.end(meta, unitId, this.record(meta, unit, attempt, sample));
    return this.afterUnit(meta, unit.lane);
  }

  /**
   * A unit's attempt threw: it is tried again after a backoff, or recorded as a failed sample once
   * its attempts run out. Returns the next unit for the lane, like `unitDone`. `calls`: the model
   * calls the attempt made, counted into the unit's sample whichever attempt ends it.
   */
  async unitFailed(unitId: string, attempt: number, error: string, calls?: ModelCalls): Promise<UnitMessage | null> {
    const meta = this.meta();
    const unit = this.unit(unitId);
    if (!meta || meta.status !== "running" || !unit || unit.state !== "inflight" || unit.attempts !== attempt) return null;
    this.failAttempt(meta, unit, attempt, error, calls);
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
    // Never started here: a start arriving after this must not run it (the caller ends it in D1).
    if (!meta) return (await this.abandon("canceled")) ? "canceled" : (this.meta()?.status ?? "canceled");
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

  /**
   * Lease expiry, start deadlines, retry backoffs, refills and progress flushes; also what resumes a
   * run after an eviction, and a finish after a crash (its heartbeat stopped).
   */
  async alarm(): Promise<void> {
    this.alarmAt = null;
    const meta = this.meta();
    if (!meta || this.get<boolean>("finished")) return;
    // A canceled run whose finish was lost (its heartbeat stopped): finish it again.
    if (meta.status !== "running") return this.finish();
    // A start that crashed before D1 showed the run running. D1 may be down: the rest of the alarm
    // goes on, and an alarm stays set to try again (one that threw could be retried out of existence).
    try {
      await this.announce(meta);
    } catch (err) {
      console.error(JSON.stringify({ level: "warn", run_id: meta.runId, error: `announcing the run failed, retried at the next alarm: ${String(err)}` }));
      await this.setAlarm(Date.now() + START_DEADLINE_MS);
    }
    const now = Date.now();
    const expired = this.sql
      .exec<UnitRow & { dispatched_at: number | null }>(
        `SELECT ${UNIT_COLUMNS}, dispatched_at FROM units WHERE state = 'inflight' AND lease_until <= ?`,
        now,
      )
      .toArray();
    const resend: UnitMessage[] = [];
    for (const u of expired) {
      const since = u.dispatched_at ?? now;
      if (u.started) {
        this.failAttempt(meta, u, u.attempts, `unit did not report within its lease of ${meta.leaseMs} ms`);
      } else if (now - since >= meta.leaseMs) {
        this.failAttempt(meta, u, u.attempts, `no lane started the unit within its lease of ${meta.leaseMs} ms`);
      } else {
        // Not started: its message was lost or is late. The same message again (same attempt, same
        // lane): whichever copy comes first runs, the lane drops the other as one it has, and a copy
        // after the unit ended finds it no longer in flight (unitContext), so a unit runs once.
        const wait = Math.min(Math.max(now - since, START_DEADLINE_MS), START_RECHECK_MAX_MS);
        this.sql.exec("UPDATE units SET lease_until = ? WHERE id = ?", Math.min(now + wait, since + meta.leaseMs), u.id);
        resend.push({ kind: "unit", runId: meta.runId, unitId: u.id, attempt: u.attempts, lane: u.lane });
      }
    }
    if (resend.length) await this.send(resend, "re-sending units no lane started");
    // When every unit has ended, the finish flushes everything itself (after starting its heartbeat).
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
      const counts = progressColumns(meta);
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
    const columns = "id, state, attempts, lane, lease_until AS leaseUntil, ready_at AS readyAt, started";
    type Row = Omit<UnitView, "started"> & { started: number };
    const rows = state
      ? this.sql.exec<Row>(`SELECT ${columns} FROM units WHERE state = ? ORDER BY ord LIMIT ?`, state, limit)
      : this.sql.exec<Row>(`SELECT ${columns} FROM units ORDER BY ord LIMIT ?`, limit);
    return rows.toArray().map((r) => ({ ...r, started: r.started === 1 }));
  }

  private unit(id: string): UnitRow | undefined {
    return this.sql.exec<UnitRow>(`SELECT ${UNIT_COLUMNS} FROM units WHERE id = ?`, id).toArray()[0];
  }

  private end(meta: Meta, unitId: string, status: "succeeded" | "failed"): void {
    this.sql.exec("UPDATE units SET state = 'ended', lease_until = NULL WHERE id = ?", unitId);
    if (status === "succeeded") meta.done++;
    else meta.failed++;
    this.dirty = true;
  }

  /** `calls`: the model calls of the failed attempt, when its lane reported them (a silent lane did not). */
  private failAttempt(meta: Meta, unit: UnitRow, attempt: number, error: string, calls?: ModelCalls): void {
    if (attempt < meta.maxAttempts) {
      this.sql.exec(
        `UPDATE units SET state = 'pending', lease_until = NULL, ready_at = ?,
           requests = requests + ?, retries = retries + ?, rate_limited = rate_limited + ? WHERE id = ?`,
        Date.now() + unitRetryDelayMs(attempt),
        calls?.requests ?? 0,
        calls?.retries ?? 0,
        calls?.rateLimited ?? 0,
        unit.id,
      );
      return;
    }
    // Out of attempts: the failure itself becomes the unit's sample, so nothing is silently dropped.
    const reason = `gave up after ${attempt} attempts: ${error}`;
    this.end(meta, unit.id, this.record(meta, unit, attempt, { ...this.failedSample(meta, unit.id, reason), calls }));
  }

  /** A unit's sample when the unit itself could not produce one: the evaluator's failure output and the reason. */
  private failedSample(meta: Meta, unitId: string, reason: string): UnitSample {
    const output = evaluatorFor(meta.evaluator).failureOutput(this.get("config"), unitId, reason);
    return { status: "failed", output: output == null ? null : JSON.stringify(output), error: reason };
  }

  /**
   * Records a unit's sample in the outbox, with the model calls of all its attempts (the earlier
   * ones' from the unit's row, the last one's from the sample); returns the status it was recorded with.
   */
  private record(meta: Meta, unit: UnitRow, attempts: number, sample: UnitSample): "succeeded" | "failed" {
    const unitId = unit.id;
    const bytes = sampleBytes(sample);
    // Stored as it is, a larger one would be refused by D1 on every flush: kept as a failed sample that says why.
    const s =
      bytes > LIMITS.sampleBytes
        ? this.failedSample(meta, unitId, `the unit's output is ${bytes} bytes, over the ${LIMITS.sampleBytes}-byte limit of a stored sample`)
        : sample;
    const calls = addCalls({ requests: unit.requests, retries: unit.retries, rateLimited: unit.rate_limited }, sample.calls);
    addCalls((meta.calls ??= noCalls()), calls);
    this.sql.exec(
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
        .exec<OutboxRow>(
          "SELECT seq, unit_id, status, attempts, output, error, created_at, requests, retries, rate_limited FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
          this.flushed(),
          FLUSH_ROWS,
        )
        .toArray();
      if (rows.length === 0) return;
      await insertSamples(db, rows.map((r) => sampleInsert(meta.runId, r)));
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
    const next = lane === null ? null : (this.assign([lane], false)[0] ?? null);
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

  /**
   * Marks ready pending units in flight on the given lanes (one each, in plan order). A unit handed
   * through the Queue (`queued`) is not started until its lane says so (unitContext), so its lease is
   * the start deadline until then; one handed in the reply to its lane's report is started already.
   */
  private assign(lanes: number[], queued: boolean): UnitMessage[] {
    const meta = this.meta()!;
    const now = Date.now();
    const lease = queued ? Math.min(START_DEADLINE_MS, meta.leaseMs) : meta.leaseMs;
    const ready = this.sql
      .exec<{ id: string; attempts: number }>(
        "SELECT id, attempts FROM units WHERE state = 'pending' AND ready_at <= ? ORDER BY ord LIMIT ?",
        now,
        lanes.length,
      )
      .toArray();
    return ready.map((u, i) => {
      this.sql.exec(
        "UPDATE units SET state = 'inflight', attempts = attempts + 1, lane = ?, lease_until = ?, started = ?, dispatched_at = ? WHERE id = ?",
        lanes[i],
        now + lease,
        queued ? 0 : 1,
        now,
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
    // If sending fails, the units stay in flight unstarted: the alarm sends them again at their start deadline.
    await this.send(this.assign(idle, true), "dispatching units");
    await this.armAlarm();
  }

  /** Sends unit messages through the Queue; a failure is logged, not thrown (see dispatch). */
  private async send(units: UnitMessage[], what: string): Promise<void> {
    const messages = units.map((body) => ({ body, contentType: "json" as const }));
    try {
      for (let i = 0; i < messages.length; i += 100) await this.env.UNIT_QUEUE.sendBatch(messages.slice(i, i + 100));
    } catch (err) {
      console.error(JSON.stringify({ level: "warn", run_id: this.meta()?.runId, error: `${what} failed, sent again at their start deadline: ${String(err)}` }));
    }
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
   * backend's call fails and its fallback applies rather than the whole run. Its calls are counted
   * in `tally`, into the run's.
   */
  private async aggregateContext(canceled: boolean, signal: AbortSignal, tally: CallTally): Promise<AggregateContext> {
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
      embeddings: ({ baseUrl, apiKey, timeoutMs }) =>
        tally.embeddings(createOpenAIEmbeddingClient({ baseURL: baseUrl, apiKey, timeoutMs, onRetry: tally.onRetry, allowLoopback: loopbackAllowed(this.env) })),
      secret: (name) => secrets[name],
    };
  }

  private finishing: Promise<void> | null = null;
  /** Stops the model calls of an aggregate under way (cancel, or its time budget). */
  private aggregateCalls: AbortController | null = null;

  /** Aggregates what the samples hold, stores the result and final state, drops the secret, and notifies. */
  private finish(): Promise<void> {
    // One finish at a time: the heartbeat's alarm or a cancel may come while a long aggregate runs here.
    // It never rejects: a finish that failed has set its retry alarm (finishOnce), and an alarm handler
    // that threw could be retried out of existence.
    return (this.finishing ??= this.finishOnce()
      // The message logged is the redacted one finishOnce stored: a log keeps no key either.
      .catch(() => console.error(JSON.stringify({ level: "error", run_id: this.meta()?.runId, error: `finish failed, retried with backoff: ${this.get<string>("finishError")}` })))
      .finally(() => (this.finishing = null)));
  }

  /**
   * Keeps the alarm FINISH_HEARTBEAT_MS ahead until `stop`: while this object lives the finish goes
   * on, and once it crashes or is evicted the alarm fires within seconds and finishes again. (An alarm
   * that fires while the finish still goes here joins it, see `finish`.) Not a bound on the finish's
   * length: the aggregate's model calls have their own budget.
   */
  private async heartbeat(): Promise<{ stop(): Promise<void> }> {
    await this.setAlarm(Date.now() + FINISH_HEARTBEAT_MS);
    let beat: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      beat = beat.then(() => this.setAlarm(Date.now() + FINISH_HEARTBEAT_MS)).catch(() => {});
    }, FINISH_BEAT_MS);
    return {
      stop: async () => {
        clearInterval(timer);
        // A beat under way must not set the alarm again after the finish deletes it.
        await beat;
      },
    };
  }

  private async finishOnce(): Promise<void> {
    if (this.get<boolean>("finished")) return;
    const tries = (this.get<number>("finishTries") ?? 0) + 1;
    this.put("finishTries", tries);
    if (tries > MAX_FINISH_TRIES) return this.giveUpFinish(tries - 1);
    const heartbeat = await this.heartbeat();
    let final: { meta: Meta; status: RunStatus; calls: ModelCalls };
    try {
      final = await this.aggregateAndStore();
    } catch (err) {
      await heartbeat.stop();
      // Kept (redacted) for the run's error if the finish never succeeds; tried again with backoff.
      this.put("finishError", runRedactor(await this.runSecrets()).text(err instanceof Error ? err.message : String(err)));
      await this.setAlarm(Date.now() + finishRetryMs(tries));
      throw err;
    }
    await heartbeat.stop();
    const { meta, status, calls } = final;
    meta.status = status;
    meta.calls = calls;
    this.put("meta", meta);
    this.put("secret", null);
    this.put("finished", true);
    // D1 holds the samples from here on.
    this.sql.exec("DELETE FROM outbox");
    await this.deleteAlarm();
  }

  /**
   * The end of a run whose finish kept failing: no result, the reason in its error, its final event;
   * a canceled run stays canceled. Written only over a status that is not final, like any finish.
   */
  private async giveUpFinish(tries: number): Promise<void> {
    const meta = this.meta()!;
    const status: RunStatus = meta.status === "canceled" ? "canceled" : "failed";
    const db = openDb(this.env.DB);
    await settleRun(db, meta.runId, ["queued", "running"], {
      status,
      error: `the run's finish failed ${tries} times, so it has no result; last error: ${this.get<string>("finishError") ?? "unknown"}`,
      ...progressColumns(meta),
      finishedAt: new Date(),
    });
    const run = await getRunById(db, meta.runId);
    if (run) await enqueueRunEvent(this.env, run, `msg_final_${meta.runId}`);
    meta.status = status;
    this.put("meta", meta);
    this.put("secret", null);
    this.put("finished", true);
    this.sql.exec("DELETE FROM outbox");
    await this.deleteAlarm();
  }

  /** The run's secrets (decrypted), or none once they are dropped or cannot be read. */
  private async runSecrets(): Promise<Record<string, string>> {
    const secretEnc = this.get<string | null>("secret") ?? null;
    if (!secretEnc) return {};
    try {
      return JSON.parse(await decryptSecret(this.env.SECRETS_KEY, secretEnc)) as Record<string, string>;
    } catch {
      return {};
    }
  }

  /** The finish up to this object's own final state: progress, aggregate, follow-up, D1 and the event. */
  private async aggregateAndStore(): Promise<{ meta: Meta; status: RunStatus; calls: ModelCalls }> {
    const started = this.meta()!;
    const db = openDb(this.env.DB);
    // D1 holds every sample, and its progress counts them all, before the aggregate starts: an
    // aggregate may take minutes (SS embeddings), and the progress must not lag the samples meanwhile.
    await this.flushRecorded();
    await updateRun(db, started.runId, progressColumns(started));
    const evaluator = evaluatorFor(started.evaluator);
    const samples: StoredSample[] = this.sql
      .exec<{ unit_id: string; status: "succeeded" | "failed"; output: string | null; error: string | null }>("SELECT unit_id, status, output, error FROM outbox ORDER BY seq")
      .toArray()
      .map((r) => storedSample(evaluator, { unitId: r.unit_id, status: r.status, output: r.output, error: r.error }));
    let result: unknown = null;
    let error: string | null = null;
    const calls = (this.aggregateCalls = new AbortController());
    const tally = new CallTally();
    const budget = setTimeout(
      () => calls.abort(new Error(`the aggregate's model calls took over ${AGGREGATE_CALLS_BUDGET_MS / 60_000} minutes and were stopped`)),
      AGGREGATE_CALLS_BUDGET_MS,
    );
    try {
      result = await evaluator.aggregate(this.get("config"), samples, await this.aggregateContext(started.status === "canceled", calls.signal, tally));
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
    // D1 and the event first, then this object's own final state (finishOnce): if anything here fails
    // or the object is evicted, the alarm runs the whole finish again (the D1 write is idempotent, and
    // the event keeps one webhook-id per run, so a receiver can drop a repeat).
    const total = addCalls(addCalls(noCalls(), meta.calls), tally.calls);
    // An aggregate's or follow-up's message may quote what an endpoint said: no key of the run is kept.
    const redact = runRedactor(await this.runSecrets());
    // Only over a status that is not final: a run ended in D1 by someone else (a cancel that found no
    // coordinator, before this one started) keeps that end; a finish run twice writes the same.
    await settleRun(db, meta.runId, ["queued", "running"], {
      status,
      result: result === null ? null : redact.value(result),
      error: error === null ? null : redact.text(error),
      ...progressColumns({ ...meta, calls: total }),
      finishedAt: new Date(),
    });
    // A run that hands over to a follow-up is not the end of the work: only the last one notifies.
    const run = await getRunById(db, meta.runId);
    if (run && !nextRunId) await enqueueRunEvent(this.env, run, `msg_final_${meta.runId}`);
    return { meta, status, calls: total };
  }
}
