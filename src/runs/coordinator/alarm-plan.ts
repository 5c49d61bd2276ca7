// What the coordinator's one alarm is for, said in one place. `AlarmPurpose` lists every reason it is
// set; `planUnitsAlarm` picks, for a running run, the earliest thing its units need; `Alarm` is the
// only code that sets or deletes the alarm, and it remembers why. The alarm handler does not rely on
// that memory (an eviction loses it): it rebuilds what is due from storage (see index.ts). Only types
// are imported, so the plan can be tested in plain Node.

export type AlarmPurpose =
  /** A start under way: if it crashes before D1 shows the run running or before its first dispatch, the alarm does both. */
  | "start"
  /** D1 refused the run's `running` status: tried again. */
  | "announce"
  /** A started unit's lease ends: its lane went silent. */
  | "lease"
  /** A unit handed through the Queue is not started yet: its message goes again, or its attempt fails. */
  | "start-deadline"
  /** A failed unit's backoff ends: it goes to the next free lane. */
  | "retry"
  /** Samples and progress wait to be copied to D1. */
  | "flush"
  /** Every unit has ended: the finish runs in the alarm, not in a lane's report. */
  | "finish"
  /** A finish is under way: kept a few seconds ahead, so a finish cut short by a crash runs again. */
  | "finish-heartbeat"
  /** A finish failed: tried again after its backoff. */
  | "finish-retry";

export type AlarmPlan = { at: number; for: AlarmPurpose };

/** Samples and progress counters reach D1 at most this often while a run is going (and always when it ends). */
export const PROGRESS_FLUSH_MS = 250;

/**
 * The next alarm a running run's units need: the earliest lease or start deadline, the end of the
 * earliest backoff, and a progress flush when D1 lacks something. Null when nothing is due.
 */
export function planUnitsAlarm({
  now,
  lease,
  backoff,
  flushDue,
}: {
  now: number;
  lease: { at: number; started: boolean } | null;
  backoff: number | null;
  flushDue: boolean;
}): AlarmPlan | null {
  const candidates: AlarmPlan[] = [];
  if (lease) candidates.push({ at: lease.at, for: lease.started ? "lease" : "start-deadline" });
  if (backoff !== null) candidates.push({ at: backoff, for: "retry" });
  if (flushDue) candidates.push({ at: now + PROGRESS_FLUSH_MS, for: "flush" });
  return candidates.reduce<AlarmPlan | null>((first, c) => (first === null || c.at < first.at ? c : first), null);
}

/**
 * What to do with the alarm set for `current` (null: none) to serve `plan`. An alarm already set
 * earlier, and still ahead, is kept: when it fires it plans again. One in the past is stale.
 */
export function armDecision(
  current: number | null,
  plan: AlarmPlan | null,
  now: number,
): { set: number } | "delete" | "keep" {
  if (plan === null) return current === null ? "keep" : "delete";
  if (current === null || current > plan.at || current < now) return { set: Math.max(plan.at, now + 10) };
  return "keep";
}

/** The alarm as this instance knows it: when, and why (unknown when an earlier instance set it). */
export type AlarmNow = { at: number; for?: AlarmPurpose } | null;

/** The coordinator's alarm. Each setting names its purpose. */
export class Alarm {
  /** Undefined until known: a fresh instance reads the time from storage when it needs it. */
  private current: AlarmNow | undefined;

  private readonly storage: Pick<DurableObjectStorage, "getAlarm" | "setAlarm" | "deleteAlarm">;

  constructor(storage: Pick<DurableObjectStorage, "getAlarm" | "setAlarm" | "deleteAlarm">) {
    this.storage = storage;
  }

  /** What this instance knows of the alarm (undefined: not read yet). */
  get known(): AlarmNow | undefined {
    return this.current;
  }

  async set(at: number, purpose: AlarmPurpose): Promise<void> {
    await this.storage.setAlarm(at);
    this.current = { at, for: purpose };
  }

  async clear(): Promise<void> {
    await this.storage.deleteAlarm();
    this.current = null;
  }

  /** The alarm fired: none is set until the handler sets one. */
  fired(): void {
    this.current = null;
  }

  /** True when an alarm is known to be set within `ms` from `now` (so it covers whatever falls due before then). */
  dueWithin(ms: number, now: number): boolean {
    return this.current != null && this.current.at <= now + ms;
  }

  /** Sets, keeps or deletes the alarm to serve `plan` (see armDecision). */
  async arm(plan: AlarmPlan | null): Promise<void> {
    if (this.current === undefined) {
      const at = await this.storage.getAlarm();
      this.current = at === null ? null : { at };
    }
    const decision = armDecision(this.current?.at ?? null, plan, Date.now());
    if (decision === "delete") await this.clear();
    else if (decision !== "keep") await this.set(decision.set, plan!.for);
  }
}
