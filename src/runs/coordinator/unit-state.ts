// A unit's life at the coordinator, as data: its states, the moves between them, and the rules that
// pick a move (leases, start deadlines, retries). No storage here (units.ts applies the moves to the
// table) and only types are imported, so the rules can be tested in plain Node.
import type { ModelCalls } from "../lanes/model-calls.ts";

/** Where a unit is in its life at the coordinator (the `state` column of its row). */
export type UnitState = "pending" | "inflight" | "ended";

/**
 * A unit as its row holds it. `calls`: the model calls of its earlier attempts (the last attempt's
 * come with its report). `lane` stays what it was once the unit leaves a lane.
 */
export type Unit = PendingUnit | InflightUnit | EndedUnit;
export type PendingUnit = {
  id: string;
  state: "pending";
  attempts: number;
  lane: number | null;
  readyAt: number;
  calls: ModelCalls;
};
/**
 * In flight on `lane`, attempt `attempts`. Handed through the Queue it is not `started` until its lane
 * asks for its context, and `leaseUntil` is its start deadline until then; from its start, its lease.
 * `dispatchedAt`: when this attempt was handed out (null in rows stored before it was kept).
 */
export type InflightUnit = {
  id: string;
  state: "inflight";
  attempts: number;
  lane: number;
  started: boolean;
  leaseUntil: number;
  dispatchedAt: number | null;
  calls: ModelCalls;
};
export type EndedUnit = { id: string; state: "ended"; attempts: number; lane: number | null; calls: ModelCalls };

/** Every move a unit makes, from the state it requires to the state it leaves the unit in. */
export const UNIT_MOVES = {
  /** Its next attempt goes to a lane: started at once in a lane's reply, unstarted through the Queue. */
  dispatch: ["pending", "inflight"],
  /** Its lane asked for the unit's context: from here its full lease bounds it. */
  start: ["inflight", "inflight"],
  /** Not started by its start deadline: the same message again (same attempt, same lane). */
  resend: ["inflight", "inflight"],
  /** The attempt failed (it threw, or its lease ran out) and attempts remain: pending after a backoff. */
  retry: ["inflight", "pending"],
  /** Its sample is recorded: its lane's, or its failure's once its attempts ran out. */
  end: ["inflight", "ended"],
} as const satisfies Record<string, readonly [UnitState, UnitState]>;

export type UnitMove = keyof typeof UNIT_MOVES;

/**
 * A unit handed to a lane through the Queue must be started by the lane (it asks for the unit's
 * context) within this, else its message is sent again: a message lost with the local queue (a killed
 * `wrangler dev`), or a failed send, costs seconds, not a lease. The wait doubles while the unit stays
 * unstarted, up to START_RECHECK_MAX_MS, and a unit not started within its whole lease counts as a
 * failed attempt, as a silent one does.
 */
export const START_DEADLINE_MS = 5_000;
export const START_RECHECK_MAX_MS = 60_000;

/** Backoff before a failed unit is tried again: 1 s, 2 s, 4 s, … capped at 30 s. */
export function unitRetryDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** (attempt - 1));
}

/**
 * The one guard of a lane's word about a unit (its start, its sample, its failure): it counts only
 * for the attempt in flight. Any other is a duplicate or a stale report (its lease ran out and the
 * unit went on without it), and changes nothing.
 */
export function isCurrent(unit: Unit | undefined, attempt: number): unit is InflightUnit {
  return unit !== undefined && unit.state === "inflight" && unit.attempts === attempt;
}

/** How long a newly dispatched attempt may go before the alarm looks at it: its start deadline if it goes through the Queue. */
export function dispatchLeaseMs(queued: boolean, leaseMs: number): number {
  return queued ? Math.min(START_DEADLINE_MS, leaseMs) : leaseMs;
}

/** After a failed attempt: tried again after its backoff while attempts remain, else ended with the failure as its sample. */
export function afterFailure(
  attempt: number,
  maxAttempts: number,
  error: string,
  now: number,
): { move: "retry"; readyAt: number } | { move: "end"; reason: string } {
  if (attempt < maxAttempts) return { move: "retry", readyAt: now + unitRetryDelayMs(attempt) };
  // Out of attempts: the failure itself becomes the unit's sample, so nothing is silently dropped.
  return { move: "end", reason: `gave up after ${attempt} attempts: ${error}` };
}

/**
 * What a unit whose deadline passed becomes. Started: its lane went silent, a failed attempt. Not
 * started: its message was lost or is late, so the same message goes again (whichever copy comes
 * first runs, the lane drops the other as one it has, and a copy after the unit ended finds it no
 * longer in flight), with the next check later each time, until its whole lease has gone by.
 */
export function afterDeadline(
  unit: InflightUnit,
  leaseMs: number,
  now: number,
): { move: "fail"; error: string } | { move: "resend"; leaseUntil: number } {
  if (unit.started) return { move: "fail", error: `unit did not report within its lease of ${leaseMs} ms` };
  const since = unit.dispatchedAt ?? now;
  if (now - since >= leaseMs)
    return { move: "fail", error: `no lane started the unit within its lease of ${leaseMs} ms` };
  const wait = Math.min(Math.max(now - since, START_DEADLINE_MS), START_RECHECK_MAX_MS);
  return { move: "resend", leaseUntil: Math.min(now + wait, since + leaseMs) };
}
