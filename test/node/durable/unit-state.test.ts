// Issue 15 (item 3): a unit's states, moves and rules, in one place and without storage.
import { describe, expect, it } from "vitest";
import {
  afterDeadline,
  afterFailure,
  dispatchLeaseMs,
  isCurrent,
  START_DEADLINE_MS,
  START_RECHECK_MAX_MS,
  UNIT_MOVES,
  unitRetryDelayMs,
  type InflightUnit,
  type Unit,
} from "../../../src/runs/coordinator/unit-state.ts";

const calls = { requests: 0, retries: 0, rateLimited: 0 };
const inflight = (over: Partial<InflightUnit> = {}): InflightUnit => ({
  id: "q0.r0",
  state: "inflight",
  attempts: 1,
  lane: 0,
  started: true,
  leaseUntil: 0,
  dispatchedAt: 0,
  calls,
  ...over,
});

describe("unit moves", () => {
  it("go pending → inflight → ended, and back to pending only from in flight", () => {
    expect(UNIT_MOVES).toEqual({
      dispatch: ["pending", "inflight"],
      start: ["inflight", "inflight"],
      resend: ["inflight", "inflight"],
      retry: ["inflight", "pending"],
      end: ["inflight", "ended"],
    });
    // Nothing leaves `ended`: a unit's sample is recorded once.
    expect(Object.values(UNIT_MOVES).map(([from]) => from as string)).not.toContain("ended");
  });
});

describe("isCurrent", () => {
  it.each<[string, Unit | undefined, number, boolean]>([
    ["the attempt in flight", inflight({ attempts: 2 }), 2, true],
    ["an earlier attempt (a stale report)", inflight({ attempts: 2 }), 1, false],
    ["a unit that ended (a duplicate report)", { id: "u", state: "ended", attempts: 1, lane: 0, calls }, 1, false],
    ["a unit waiting for its retry", { id: "u", state: "pending", attempts: 1, lane: 0, readyAt: 0, calls }, 1, false],
    ["an unknown unit", undefined, 1, false],
  ])("accepts a lane's word only for the attempt in flight: %s", (_, unit, attempt, current) => {
    expect(isCurrent(unit, attempt)).toBe(current);
  });
});

describe("leases and start deadlines", () => {
  it("a unit handed through the Queue has its start deadline, one handed in a reply its lease", () => {
    expect(dispatchLeaseMs(true, 60_000)).toBe(START_DEADLINE_MS);
    expect(dispatchLeaseMs(true, 2_000)).toBe(2_000);
    expect(dispatchLeaseMs(false, 60_000)).toBe(60_000);
  });

  it("a started unit past its lease fails its attempt", () => {
    expect(afterDeadline(inflight({ started: true }), 60_000, 100_000)).toEqual({
      move: "fail",
      error: "unit did not report within its lease of 60000 ms",
    });
  });

  it("an unstarted unit is sent again, each check later (5 s, then the time since its dispatch, at most 60 s), never past its lease", () => {
    const lease = 10 * 60_000;
    // 5 s after its dispatch: checked again 5 s later.
    expect(afterDeadline(inflight({ started: false, dispatchedAt: 0 }), lease, 5_000)).toEqual({
      move: "resend",
      leaseUntil: 10_000,
    });
    // 20 s after: the wait doubles to 20 s.
    expect(afterDeadline(inflight({ started: false, dispatchedAt: 0 }), lease, 20_000)).toEqual({
      move: "resend",
      leaseUntil: 40_000,
    });
    // 5 minutes after: capped at START_RECHECK_MAX_MS.
    expect(afterDeadline(inflight({ started: false, dispatchedAt: 0 }), lease, 300_000)).toEqual({
      move: "resend",
      leaseUntil: 300_000 + START_RECHECK_MAX_MS,
    });
    // 9.5 minutes after: the next check is the end of its lease.
    expect(afterDeadline(inflight({ started: false, dispatchedAt: 0 }), lease, 570_000)).toEqual({
      move: "resend",
      leaseUntil: lease,
    });
  });

  it("an unstarted unit whose whole lease has gone by fails its attempt", () => {
    expect(afterDeadline(inflight({ started: false, dispatchedAt: 0 }), 60_000, 60_000)).toEqual({
      move: "fail",
      error: "no lane started the unit within its lease of 60000 ms",
    });
  });
});

describe("retries", () => {
  it("back off 1 s, 2 s, 4 s … up to 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(unitRetryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it("a failed attempt is retried while attempts remain, then ends the unit saying why", () => {
    expect(afterFailure(1, 3, "boom", 10_000)).toEqual({ move: "retry", readyAt: 11_000 });
    expect(afterFailure(2, 3, "boom", 10_000)).toEqual({ move: "retry", readyAt: 12_000 });
    expect(afterFailure(3, 3, "boom", 10_000)).toEqual({ move: "end", reason: "gave up after 3 attempts: boom" });
  });
});
