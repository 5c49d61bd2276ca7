// Scheduling a running run's units: what a lane's report does (its unit ends, or its attempt fails),
// which unit a lane gets next, idle lanes fed through the Queue, what the alarm does with deadlines
// that passed, and the alarm planned for the next one. The moves themselves are units.ts's.
import { openDb } from "../../db/client.ts";
import { laneName, type UnitMessage } from "../lanes/messages.ts";
import type { ModelCalls } from "../lanes/model-calls.ts";
import { planUnitsAlarm, PROGRESS_FLUSH_MS, type Alarm } from "./alarm-plan.ts";
import type { Finish } from "./finish.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { Outbox } from "./outbox.ts";
import type { Store } from "./store.ts";
import type { RunSettings, UnitSample } from "./types.ts";
import { afterDeadline, afterFailure, isCurrent, type InflightUnit } from "./unit-state.ts";
import type { Assignment, Units } from "./units.ts";
import { EndpointSeries } from "./endpoint-series.ts";

/** What scheduling works with: the coordinator's storage and its other parts. `env` is read at each use. */
export type SchedulerParts = {
  env: () => Env;
  store: Store;
  units: Units;
  outbox: Outbox;
  alarm: Alarm;
  lifecycle: Lifecycle;
  finish: Finish;
};

export class Scheduler {
  private readonly p: SchedulerParts;
  /** The run's endpoint as its lanes saw it; it also sets how many lanes are kept busy (see `lanes`). */
  readonly endpoint: EndpointSeries;
  /** A lane's report widened the lanes: the free ones are fed after the report. */
  private widened = false;

  constructor(parts: SchedulerParts) {
    this.p = parts;
    this.endpoint = new EndpointSeries(parts.store);
  }

  /**
   * How many lanes the run keeps busy: its `concurrency` (the user's bound, or LIMITS.concurrency
   * when it adapts), narrowed to what its endpoint's shared window can use (endpoint-series.ts), so a
   * run against an endpoint that allows 8 does not keep 100 lanes waiting for permits.
   */
  private lanes(): number {
    return this.endpoint.lanes(this.settings.concurrency);
  }

  private get settings(): RunSettings {
    return this.p.store.settings()!;
  }

  private message(a: Assignment): UnitMessage {
    return { kind: "unit", runId: this.settings.runId, unitId: a.unitId, attempt: a.attempt, lane: a.lane };
  }

  /**
   * The guard of every lane's word about a unit: the unit in flight at `attempt` while the run is
   * running, else undefined (a duplicate, a stale attempt, a run canceled or ending).
   */
  current(unitId: string, attempt: number): InflightUnit | undefined {
    if (this.p.lifecycle.phase.kind !== "running") return undefined;
    const unit = this.p.units.get(unitId);
    return isCurrent(unit, attempt) ? unit : undefined;
  }

  /** Its lane's sample: recorded and the unit ended in one write, so a sample is never lost nor counted twice. */
  ended(unit: InflightUnit, sample: UnitSample): void {
    const { endpoint, ...stored } = sample;
    this.p.outbox.record(unit.id, unit.attempts, unit.calls, stored);
    this.p.units.end(unit);
    if (this.endpoint.add(endpoint)) this.widened = true;
  }

  /** `calls`: the model calls of the failed attempt, when its lane reported them (a silent lane did not). */
  failed(unit: InflightUnit, error: string, calls?: ModelCalls): void {
    const next = afterFailure(unit.attempts, this.settings.maxAttempts, error, Date.now());
    if (next.move === "retry") return this.p.units.retry(unit, next.readyAt, calls);
    this.p.outbox.record(unit.id, unit.attempts, unit.calls, {
      ...this.p.outbox.failedSample(unit.id, next.reason),
      calls,
    });
    this.p.units.end(unit);
  }

  /**
   * After a unit ends on `lane` (null: no lane is waiting): the run moves to its finish when every
   * unit has ended, otherwise `lane` gets its next ready unit and the other free lanes are fed.
   */
  async next(lane: number | null): Promise<UnitMessage | null> {
    const { lifecycle, outbox, alarm, finish } = this.p;
    if (lifecycle.phase.kind !== "running") return null;
    const { done, failed } = outbox.progress();
    if (done + failed >= this.settings.total) {
      // The move first, in the same turn as the check: while the report's write below awaits, a cancel
      // or the alarm must find the run finishing, not move it themselves. The write touches only the
      // row's `endpoint` column, which the finish does not write.
      lifecycle.move({ kind: "finishing" });
      await this.endpoint.flush(openDb(this.p.env().DB), this.settings.runId, true);
      // A lane's report returns at once: the aggregate (which may call models) runs in the alarm.
      if (lane === null) await finish.run();
      else await alarm.set(Date.now(), "finish");
      return null;
    }
    // A lane past the lanes the endpoint's window can use gets no next unit and goes idle.
    const next = lane === null || lane >= this.lanes() ? undefined : this.assign([lane], false)[0];
    if (this.widened) {
      this.widened = false;
      await this.dispatchIdle();
    }
    if (!next) {
      await this.dispatchIdle();
      return null;
    }
    // The common case, a lane taking its next unit, leaves no lane idle and moves no deadline
    // earlier (a unit ended, and the new lease is the latest): an alarm already due within the
    // progress flush covers everything, and it plans again when it runs.
    if (!alarm.dueWithin(PROGRESS_FLUSH_MS, Date.now())) await this.arm();
    return next;
  }

  /** Gives every idle lane a ready unit through the Queue, then plans the alarm. */
  async dispatchIdle(): Promise<void> {
    if (this.p.lifecycle.phase.kind !== "running") return;
    const busy = new Set(this.p.units.busyLanes());
    const idle: number[] = [];
    for (let lane = 0; lane < this.lanes(); lane++) if (!busy.has(lane)) idle.push(lane);
    // If sending fails, the units stay in flight unstarted: the alarm sends them again at their start deadline.
    await this.send(this.assign(idle, true), "dispatching units");
    await this.arm();
  }

  /**
   * The alarm of a running run: deadlines that passed (a silent lane's unit fails its attempt, an
   * unstarted one's message goes again), the progress flush, then refills and the next alarm.
   */
  async onAlarm(): Promise<void> {
    const { units, outbox } = this.p;
    const now = Date.now();
    const resend: UnitMessage[] = [];
    for (const unit of units.pastDeadline(now)) {
      const next = afterDeadline(unit, this.settings.leaseMs, now);
      if (next.move === "fail") {
        this.failed(unit, next.error);
      } else {
        units.resend(unit, next.leaseUntil);
        resend.push(this.message({ unitId: unit.id, attempt: unit.attempts, lane: unit.lane }));
      }
    }
    if (resend.length) await this.send(resend, "re-sending units no lane started");
    // When every unit has ended, the finish flushes everything itself (after starting its heartbeat).
    const { done, failed } = outbox.progress();
    if (outbox.flushDue && done + failed < this.settings.total) await outbox.flushProgress();
    if (done + failed < this.settings.total) await this.endpoint.flush(openDb(this.p.env().DB), this.settings.runId);
    await this.next(null);
  }

  /** The lanes with a unit in flight, to stop them (cancel). */
  busyLaneNames(): string[] {
    return this.p.units.busyLanes().map((lane) => laneName(this.settings.runId, lane));
  }

  /**
   * Sets the alarm for what the units need next (see planUnitsAlarm). Only while running: once the
   * run moves to its finish, the alarm is the finish's.
   */
  private async arm(): Promise<void> {
    if (this.p.lifecycle.phase.kind !== "running") return;
    const now = Date.now();
    await this.p.alarm.arm(planUnitsAlarm({ now, ...this.p.units.deadlines(now), flushDue: this.p.outbox.flushDue }));
  }

  private assign(lanes: number[], queued: boolean): UnitMessage[] {
    return this.p.units.dispatch(lanes, queued, this.settings.leaseMs, Date.now()).map((a) => this.message(a));
  }

  /** Sends unit messages through the Queue; a failure is logged, not thrown (see dispatchIdle). */
  private async send(units: UnitMessage[], what: string): Promise<void> {
    const messages = units.map((body) => ({ body, contentType: "json" as const }));
    try {
      for (let i = 0; i < messages.length; i += 100)
        await this.p.env().UNIT_QUEUE.sendBatch(messages.slice(i, i + 100));
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          run_id: this.settings.runId,
          error: `${what} failed, sent again at their start deadline: ${String(err)}`,
        }),
      );
    }
  }
}
