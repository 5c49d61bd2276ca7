// Issue 15 (item 3): one place says what the coordinator's alarm is for.
import { describe, expect, it } from "vitest";
import { Alarm, armDecision, planUnitsAlarm, PROGRESS_FLUSH_MS } from "../../../src/runs/coordinator/alarm-plan.ts";

describe("planUnitsAlarm", () => {
  const now = 1_000_000;

  it("plans nothing when nothing is due", () => {
    expect(planUnitsAlarm({ now, lease: null, backoff: null, flushDue: false })).toBeNull();
  });

  it.each([
    [
      "a started unit's lease",
      { lease: { at: now + 100, started: true }, backoff: now + 200, flushDue: true },
      { at: now + 100, for: "lease" },
    ],
    [
      "an unstarted unit's start deadline",
      { lease: { at: now + 100, started: false }, backoff: null, flushDue: false },
      { at: now + 100, for: "start-deadline" },
    ],
    [
      "a retry's backoff",
      { lease: { at: now + 5_000, started: true }, backoff: now + 1_000, flushDue: false },
      { at: now + 1_000, for: "retry" },
    ],
    [
      "a progress flush",
      { lease: { at: now + 5_000, started: true }, backoff: null, flushDue: true },
      { at: now + PROGRESS_FLUSH_MS, for: "flush" },
    ],
  ] as const)("is for the earliest deadline: %s", (_, deadlines, plan) => {
    expect(planUnitsAlarm({ now, ...deadlines })).toEqual(plan);
  });
});

describe("armDecision", () => {
  const now = 1_000_000;
  const plan = { at: now + 500, for: "lease" } as const;

  it("sets an alarm when none is set, or when the one set is later or already past", () => {
    expect(armDecision(null, plan, now)).toEqual({ set: now + 500 });
    expect(armDecision(now + 900, plan, now)).toEqual({ set: now + 500 });
    expect(armDecision(now - 1, plan, now)).toEqual({ set: now + 500 });
  });

  it("keeps an earlier alarm still ahead: it plans again when it fires", () => {
    expect(armDecision(now + 100, plan, now)).toBe("keep");
  });

  it("deletes the alarm when nothing is due, and never sets one in the past", () => {
    expect(armDecision(now + 100, null, now)).toBe("delete");
    expect(armDecision(null, null, now)).toBe("keep");
    expect(armDecision(null, { at: now - 50, for: "retry" }, now)).toEqual({ set: now + 10 });
  });
});

describe("Alarm", () => {
  function fakeStorage(at: number | null = null) {
    const storage = {
      at,
      getAlarm: async () => storage.at,
      setAlarm: async (t: number | Date) => void (storage.at = Number(t)),
      deleteAlarm: async () => void (storage.at = null),
    };
    return storage;
  }

  it("remembers why it was set, and forgets once it fired", async () => {
    const storage = fakeStorage();
    const alarm = new Alarm(storage);
    expect(alarm.known).toBeUndefined();
    await alarm.set(5_000, "finish-heartbeat");
    expect(alarm.known).toEqual({ at: 5_000, for: "finish-heartbeat" });
    expect(storage.at).toBe(5_000);
    alarm.fired();
    expect(alarm.known).toBeNull();
  });

  it("reads the time an earlier instance set before planning over it", async () => {
    const storage = fakeStorage(Date.now() + 60_000);
    const alarm = new Alarm(storage);
    await alarm.arm({ at: Date.now() + 1_000, for: "retry" });
    expect(alarm.known?.for).toBe("retry");
    expect(storage.at).toBe(alarm.known?.at);
    await alarm.arm(null);
    expect(storage.at).toBeNull();
    expect(alarm.known).toBeNull();
  });
});
