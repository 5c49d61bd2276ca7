// The units table: one row per unit of the plan, moved only by the moves of unit-state.ts (each one
// UPDATE that also checks the state it moves from), and read for the guards, the lanes and the alarm.
import { guardStoredText } from "../../platform/storage-guard.ts";
import { addColumns } from "./store.ts";
import {
  dispatchLeaseMs,
  UNIT_MOVES,
  type InflightUnit,
  type Unit,
  type UnitMove,
  type UnitState,
} from "./unit-state.ts";
import type { ModelCalls } from "../lanes/model-calls.ts";

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

/** A unit handed to a lane: which unit, which attempt, which lane. */
export type Assignment = { unitId: string; attempt: number; lane: number };

/** The earliest deadline the units set, for the alarm plan (see alarm-plan.ts). */
export type UnitDeadlines = { lease: { at: number; started: boolean } | null; backoff: number | null };

type Row = {
  id: string;
  state: UnitState;
  attempts: number;
  lane: number | null;
  started: number;
  lease_until: number | null;
  dispatched_at: number | null;
  ready_at: number;
  requests: number;
  retries: number;
  rate_limited: number;
};
const COLUMNS =
  "id, state, attempts, lane, started, lease_until, dispatched_at, ready_at, requests, retries, rate_limited";

function unitOf(r: Row): Unit {
  const calls: ModelCalls = { requests: r.requests, retries: r.retries, rateLimited: r.rate_limited };
  switch (r.state) {
    case "pending":
      return { id: r.id, state: "pending", attempts: r.attempts, lane: r.lane, readyAt: r.ready_at, calls };
    case "inflight":
      return {
        id: r.id,
        state: "inflight",
        attempts: r.attempts,
        lane: r.lane!,
        started: r.started === 1,
        leaseUntil: r.lease_until!,
        dispatchedAt: r.dispatched_at,
        calls,
      };
    case "ended":
      return { id: r.id, state: "ended", attempts: r.attempts, lane: r.lane, calls };
  }
}

/** A move's UPDATE: it sets the state it leads to and applies only to a row in the state it starts from. */
function moveSql(move: UnitMove, set: string): string {
  const [from, to] = UNIT_MOVES[move];
  return `UPDATE units SET ${from === to ? "" : `state = '${to}', `}${set} WHERE id = ? AND state = '${from}'`;
}
const MOVE_SQL: Record<UnitMove, string> = {
  dispatch: moveSql("dispatch", "attempts = attempts + 1, lane = ?, lease_until = ?, started = ?, dispatched_at = ?"),
  start: moveSql("start", "started = 1, lease_until = ?"),
  resend: moveSql("resend", "lease_until = ?"),
  retry: moveSql(
    "retry",
    "lease_until = NULL, ready_at = ?, requests = requests + ?, retries = retries + ?, rate_limited = rate_limited + ?",
  ),
  end: moveSql("end", "lease_until = NULL"),
};

/** Unit ids per seeding statement: 5,000 ids of up to 100 characters stay under a stored value's 2 MB. */
const SEED_IDS = 5_000;

export class Units {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    // `started`: the lane has started the attempt in flight; `dispatched_at`: when the attempt was
    // handed out; `requests`, `retries`, `rate_limited`: the model calls of its earlier attempts.
    sql.exec(`CREATE TABLE IF NOT EXISTS units (
      id TEXT PRIMARY KEY, ord INTEGER NOT NULL, state TEXT NOT NULL, lane INTEGER,
      attempts INTEGER NOT NULL DEFAULT 0, lease_until INTEGER, ready_at INTEGER NOT NULL DEFAULT 0)`);
    // An object created by an earlier version keeps its tables (and a run going through a deploy its
    // rows), so a new column is added here rather than in CREATE TABLE. Rows from before `started`
    // was kept were started by their lanes: hence its default.
    addColumns(sql, "units", {
      started: "INTEGER NOT NULL DEFAULT 1",
      dispatched_at: "INTEGER",
      requests: "INTEGER NOT NULL DEFAULT 0",
      retries: "INTEGER NOT NULL DEFAULT 0",
      rate_limited: "INTEGER NOT NULL DEFAULT 0",
    });
    // Every lane's report looks up the next pending unit in plan order, and every alarm the leases
    // in flight: without these, each is a scan of the whole plan. Partial, so a unit that ends
    // leaves both and a report rewrites few index pages (each page is a write of its own).
    sql.exec(`CREATE INDEX IF NOT EXISTS units_pending ON units (ord) WHERE state = 'pending'`);
    sql.exec(`CREATE INDEX IF NOT EXISTS units_inflight ON units (lease_until) WHERE state = 'inflight'`);
  }

  /**
   * The plan, every unit pending, each id at its index: a statement per SEED_IDS ids, each binding one
   * JSON array (a bound value is at most 2 MB; 60,000 ids in one could pass it).
   */
  seed(unitIds: string[]): void {
    for (let at = 0; at < unitIds.length; at += SEED_IDS) {
      const ids = JSON.stringify(unitIds.slice(at, at + SEED_IDS));
      guardStoredText(
        "durableObjectValueBytes",
        `a piece of the plan (unit ids ${at + 1} to ${Math.min(at + SEED_IDS, unitIds.length)})`,
        ids,
      );
      this.sql.exec("INSERT INTO units (id, ord, state) SELECT value, key + ?, 'pending' FROM json_each(?)", at, ids);
    }
  }

  get(id: string): Unit | undefined {
    const row = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM units WHERE id = ?`, id).toArray()[0];
    return row && unitOf(row);
  }

  /**
   * Moves ready pending units in flight on the given lanes, one each, in plan order. A unit handed
   * through the Queue (`queued`) is not started until its lane says so, so its lease is the start
   * deadline until then; one handed in the reply to its lane's report is started already.
   */
  dispatch(lanes: number[], queued: boolean, leaseMs: number, now: number): Assignment[] {
    if (lanes.length === 0) return [];
    const ready = this.sql
      .exec<{ id: string; attempts: number }>(
        "SELECT id, attempts FROM units WHERE state = 'pending' AND ready_at <= ? ORDER BY ord LIMIT ?",
        now,
        lanes.length,
      )
      .toArray();
    const leaseUntil = now + dispatchLeaseMs(queued, leaseMs);
    return ready.map((u, i) => {
      this.sql.exec(MOVE_SQL.dispatch, lanes[i], leaseUntil, queued ? 0 : 1, now, u.id);
      return { unitId: u.id, attempt: u.attempts + 1, lane: lanes[i] };
    });
  }

  /** Its lane started it: from now its full lease bounds it (a unit started already is left as it is). */
  start(unit: InflightUnit, leaseMs: number, now: number): void {
    if (!unit.started) this.sql.exec(MOVE_SQL.start, now + leaseMs, unit.id);
  }

  resend(unit: InflightUnit, leaseUntil: number): void {
    this.sql.exec(MOVE_SQL.resend, leaseUntil, unit.id);
  }

  /** `calls`: the failed attempt's model calls, kept for the sample of whichever attempt ends the unit. */
  retry(unit: InflightUnit, readyAt: number, calls: Partial<ModelCalls> | undefined): void {
    this.sql.exec(MOVE_SQL.retry, readyAt, calls?.requests ?? 0, calls?.retries ?? 0, calls?.rateLimited ?? 0, unit.id);
  }

  end(unit: InflightUnit): void {
    this.sql.exec(MOVE_SQL.end, unit.id);
  }

  /** The lanes with a unit in flight. */
  busyLanes(): number[] {
    return this.sql
      .exec<{ lane: number }>("SELECT DISTINCT lane FROM units WHERE state = 'inflight'")
      .toArray()
      .map((r) => r.lane);
  }

  /**
   * The unit in flight on `lane`, for the lane to resume. An expired lease is the alarm's to
   * re-dispatch, not the lane's to resume; a unit not started yet is the lane's whatever its start
   * deadline (the lane starts it now, as a re-sent message would).
   */
  onLane(lane: number, now: number): Assignment | null {
    const unit = this.sql
      .exec<{ id: string; attempts: number }>(
        "SELECT id, attempts FROM units WHERE state = 'inflight' AND lane = ? AND (started = 0 OR lease_until > ?) ORDER BY lease_until DESC LIMIT 1",
        lane,
        now,
      )
      .toArray()[0];
    return unit ? { unitId: unit.id, attempt: unit.attempts, lane } : null;
  }

  /** The units in flight whose lease or start deadline has passed. */
  pastDeadline(now: number): InflightUnit[] {
    return this.sql
      .exec<Row>(`SELECT ${COLUMNS} FROM units WHERE state = 'inflight' AND lease_until <= ?`, now)
      .toArray()
      .map((r) => unitOf(r) as InflightUnit);
  }

  /**
   * The earliest lease (or start deadline) in flight, and the end of the earliest backoff still to
   * come. Pending units already ready are not a deadline: a lane takes them the moment it frees.
   */
  deadlines(now: number): UnitDeadlines {
    const rows = this.sql
      .exec<{ kind: "lease" | "backoff"; t: number | null; started: number | null }>(
        `SELECT * FROM (SELECT 'lease' AS kind, lease_until AS t, started FROM units WHERE state = 'inflight' AND lease_until IS NOT NULL ORDER BY lease_until LIMIT 1)
         UNION ALL SELECT 'backoff' AS kind, min(ready_at) AS t, NULL AS started FROM units WHERE state = 'pending' AND ready_at > ?`,
        now,
      )
      .toArray();
    const lease = rows.find((r) => r.kind === "lease" && r.t !== null);
    const backoff = rows.find((r) => r.kind === "backoff")?.t ?? null;
    return { lease: lease ? { at: lease.t!, started: lease.started === 1 } : null, backoff };
  }

  /** The units in `state` (every unit when omitted), in plan order, at most `limit`. */
  view(state: UnitState | undefined, limit: number): UnitView[] {
    const columns = "id, state, attempts, lane, lease_until AS leaseUntil, ready_at AS readyAt, started";
    type ViewRow = Omit<UnitView, "started"> & { started: number };
    const rows = state
      ? this.sql.exec<ViewRow>(`SELECT ${columns} FROM units WHERE state = ? ORDER BY ord LIMIT ?`, state, limit)
      : this.sql.exec<ViewRow>(`SELECT ${columns} FROM units ORDER BY ord LIMIT ?`, limit);
    return rows.toArray().map((r) => ({ ...r, started: r.started === 1 }));
  }

  countByState(): Partial<Record<UnitState, number>> {
    const counts = this.sql
      .exec<{ state: UnitState; n: number }>("SELECT state, count(*) AS n FROM units GROUP BY state")
      .toArray();
    return Object.fromEntries(counts.map((c) => [c.state, c.n]));
  }
}
