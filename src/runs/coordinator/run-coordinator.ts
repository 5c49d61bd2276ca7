// The RunCoordinator Durable Object (one per run): its RPC surface and its alarm's dispatch. What it
// does lives in ./coordinator/: the run's phase in lifecycle.ts, the units and their moves in
// units.ts and unit-state.ts, their scheduling in scheduler.ts, the samples' copy to D1 in outbox.ts,
// the end of a run in finish.ts, and what the alarm is for in alarm-plan.ts.
import { DurableObject } from "cloudflare:workers";
import { openDb } from "../../db/client.ts";
import { settleRun } from "../../db/runs.ts";
import type { RunStatus } from "../../db/schema.ts";
import { createRun } from "../creation/create.ts";
import { evaluators } from "../../evaluators/registry.ts";
import type { UnitMessage } from "../lanes/messages.ts";
import { noCalls, type ModelCalls } from "../lanes/model-calls.ts";
import { Alarm, type AlarmNow } from "./alarm-plan.ts";
import { Checkpoints } from "./checkpoints.ts";
import { Finish } from "./finish.ts";
import { Lifecycle, statusOf, type FinalStatus, type Phase } from "./lifecycle.ts";
import { Outbox } from "./outbox.ts";
import { Scheduler } from "./scheduler.ts";
import { Store } from "./store.ts";
import type { NextUnit, Progress, RunSettings, StartRun, UnitContextReply, UnitSample } from "./types.ts";
import { START_DEADLINE_MS, type UnitState } from "./unit-state.ts";
import { Units, type UnitView } from "./units.ts";
import { invocationsOf } from "../../platform/invocation.ts";
import { guardedSql } from "../../platform/sql-guard.ts";
import { countedEnv } from "../../platform/counted-env.ts";

export type { NextUnit, StartRun, UnitContextReply, UnitSample } from "./types.ts";
export type { UnitState } from "./unit-state.ts";
export type { UnitView } from "./units.ts";

/**
 * One per run. It owns what is in flight: every unit is a row of its SQLite storage with a state
 * (pending → inflight → ended), an attempt count, the lane running it, a lease deadline and a ready
 * time, and the run's phase is stored beside them. Nothing lives only in memory, so after an
 * eviction the alarm rebuilds everything from storage: expired leases are dispatched again, free
 * lanes refilled, and a finish cut short runs again.
 *
 * A run has `concurrency` lanes, each a UnitRunner. When a lane reports a unit's end, the reply hands
 * it the next unit at once, so the run keeps `concurrency` units in flight with no waves and no
 * Queue hop between units. The Queue carries the first unit of each lane and every re-dispatch
 * (expired lease, retry after backoff), which is what makes a lost runner recoverable.
 */
export class RunCoordinator extends DurableObject<Env> {
  private readonly store: Store;
  private readonly unitTable: Units;
  private readonly outbox: Outbox;
  private readonly lifecycle: Lifecycle;
  private readonly alarms: Alarm;
  private readonly finish: Finish;
  private readonly scheduler: Scheduler;
  private readonly checkpoints: Checkpoints;

  constructor(ctx: DurableObjectState, env: Env) {
    // Calls to other objects, R2 and the Queue are subrequests of the invocation making them.
    super(ctx, countedEnv(env));
    // Bindings are read from `this.env` at each use, never kept: a test may put others in its place.
    const bindings = () => this.env;
    // Every statement is checked as production would check it (sizes, bound parameters, length).
    this.store = new Store(guardedSql(ctx.storage.sql, "the run's coordinator"));
    this.unitTable = new Units(this.store.sql);
    this.checkpoints = new Checkpoints(this.store.sql);
    this.outbox = new Outbox(this.store, bindings);
    this.lifecycle = new Lifecycle(this.store);
    this.alarms = new Alarm(ctx.storage);
    this.finish = new Finish({
      env: bindings,
      store: this.store,
      lifecycle: this.lifecycle,
      outbox: this.outbox,
      alarm: this.alarms,
      // Handed in, not imported by finish.ts: runs/creation/create.ts imports this file (for StartRun), and the
      // one cycle that makes is known to the layer check (.dependency-cruiser-known-violations.json).
      createRun: async (tenantId, run) => (await createRun(this.env, openDb(this.env.DB), tenantId, run)).run,
    });
    this.scheduler = new Scheduler({
      env: bindings,
      store: this.store,
      units: this.unitTable,
      outbox: this.outbox,
      alarm: this.alarms,
      lifecycle: this.lifecycle,
      finish: this.finish,
    });
  }

  /**
   * Starts the run once; a repeated call (a retried request, a replay completing an interrupted one)
   * changes nothing, and neither does a start that arrives after the run was abandoned (canceled or
   * settled as lost before this object ever held it): a late start must not revive it.
   */
  async start(init: StartRun): Promise<void> {
    if (this.lifecycle.phase.kind !== "new") return;
    const settings: RunSettings = {
      runId: init.runId,
      tenantId: init.tenantId,
      evaluator: init.evaluator,
      concurrency: init.concurrency,
      leaseMs: init.leaseMs,
      maxAttempts: init.maxAttempts ?? 3,
      total: init.unitIds.length,
    };
    this.ctx.storage.transactionSync(() => {
      this.unitTable.seed(init.unitIds);
      this.store.putConfig(init.config);
      this.store.put("secret", init.secretEnc);
      this.store.writeMeta(settings, { done: 0, failed: 0, calls: noCalls() });
      this.store.put("announced", false);
      // For the endpoint report (coordinator/endpoint-series.ts); the lanes adapt either way.
      if (init.adaptive) this.store.put("adaptive", true);
      // Last: the phase kept in memory must not run ahead of a transaction that failed.
      this.lifecycle.move({ kind: "running" });
    });
    // From here the run is this object's, whatever happens to this call (the creating request takes
    // a coordinator that holds the run as started). The alarm, set with no await since the plan's
    // write and so committed with it, carries a start that crashes before its D1 write or its
    // dispatch on within seconds.
    await this.alarms.set(Date.now() + START_DEADLINE_MS, "start");
    await this.announce();
    // A run of no units goes straight to its finish.
    if (settings.total === 0) await this.scheduler.next(null);
    else await this.scheduler.dispatchIdle();
  }

  /**
   * Gives up a run this object never started (its start was lost or failed), so that a start arriving
   * later does nothing. True when it was abandoned here (the caller ends it in D1), false when this
   * object holds the run (it is the coordinator's to end).
   */
  async abandon(status: "failed" | "canceled"): Promise<boolean> {
    const phase = this.lifecycle.phase;
    if (phase.kind === "new") this.lifecycle.move({ kind: "abandoned", as: status });
    return phase.kind === "new" || phase.kind === "abandoned";
  }

  /**
   * What a UnitRunner needs to execute a unit, or null when the unit should not run (stale attempt,
   * run ended). A lane asks before it starts a unit the Queue handed it, so this is also the unit's
   * start: from here its full lease bounds it, no longer the start deadline.
   */
  async unitContext(unitId: string, attempt: number): Promise<UnitContextReply | null> {
    const unit = this.scheduler.current(unitId, attempt);
    if (!unit) return null;
    const settings = this.store.settings()!;
    this.unitTable.start(unit, settings.leaseMs, Date.now());
    const concurrency = this.store.get<boolean>("adaptive") === true ? null : settings.concurrency;
    return {
      tenantId: settings.tenantId,
      evaluator: settings.evaluator,
      config: this.unitConfig(unitId),
      secretEnc: this.store.secretEnc(),
      checkpoint: this.checkpoints.of(unitId),
      concurrency,
    };
  }

  /** What a lane is handed to run `unitId`: the config, or only its part where the evaluator says (EvaluatorPlugin.unitConfig). */
  private unitConfig(unitId: string): unknown {
    const evaluator = evaluators.get(this.store.settings()!.evaluator);
    return evaluator.unitConfig ? evaluator.unitConfig(this.store.config(), unitId) : this.store.config();
  }

  /** The next unit for a lane's reply, with its part of the config where the evaluator hands lanes parts. */
  private withConfig(next: UnitMessage | null): NextUnit | null {
    if (!next || !evaluators.get(this.store.settings()!.evaluator).unitConfig) return next;
    return { ...next, config: this.unitConfig(next.unitId) };
  }

  /** The unit in flight on `lane`, for a lane resuming after an eviction (its later units are known only here). */
  async laneUnit(lane: number): Promise<UnitMessage | null> {
    if (this.lifecycle.phase.kind !== "running") return null;
    const unit = this.unitTable.onLane(lane, Date.now());
    return unit ? { kind: "unit", runId: this.store.settings()!.runId, ...unit } : null;
  }

  /**
   * A unit ended: its sample is recorded and the unit ended in one write, so a sample is never lost
   * nor counted twice. Returns the next unit for the same lane, if one is ready. Duplicate and stale
   * reports are ignored (and get no next unit).
   */
  async unitDone(unitId: string, attempt: number, sample: UnitSample): Promise<NextUnit | null> {
    await this.nextTurn();
    const unit = this.scheduler.current(unitId, attempt);
    if (!unit) return null;
    this.checkpoints.drop(unitId);
    this.scheduler.ended(unit, sample);
    return this.withConfig(await this.scheduler.next(unit.lane));
  }

  /**
   * A unit's attempt threw: it is tried again after a backoff, or recorded as a failed sample once
   * its attempts run out. Returns the next unit for the lane, like `unitDone`. `calls`: the model
   * calls the attempt made, counted into the unit's sample whichever attempt ends it.
   */
  async unitFailed(unitId: string, attempt: number, error: string, calls?: ModelCalls): Promise<NextUnit | null> {
    const unit = this.scheduler.current(unitId, attempt);
    if (!unit) return null;
    // A failed attempt is tried again from the start: its checkpoint may be what made it fail.
    this.checkpoints.drop(unitId);
    this.scheduler.failed(unit, error, calls);
    return this.withConfig(await this.scheduler.next(unit.lane));
  }

  /**
   * A lane handing over mid-unit saves where the unit is (see coordinator/checkpoints.ts); false when
   * the unit is no longer in flight at `attempt` (the lane drops it, as it drops a stale message).
   */
  async saveCheckpoint(unitId: string, attempt: number, state: string): Promise<boolean> {
    if (!this.scheduler.current(unitId, attempt)) return false;
    this.checkpoints.save(unitId, state);
    return true;
  }

  /** The state a unit's last lane saved, for the lane that continues it; null when it starts afresh. */
  async checkpointOf(unitId: string): Promise<string | null> {
    return this.checkpoints.of(unitId);
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

  /** The ending of a cancel under way, which every cancel arriving meanwhile waits for. */
  private canceling: Promise<void> | null = null;

  /**
   * Cancels the run: no unit is dispatched again, and every in-flight UnitRunner is told to abort
   * before this returns, so no new model call starts afterwards. Samples already written are kept.
   *
   * Answers the run's status once the cancel has taken effect, never `running`: `canceled`, or the
   * status the run ended with first (a finish past its last look at the phase keeps its own end). A
   * cancel arriving while another one is still ending the run waits for that end too, so no caller
   * answers before the run's final state is written (or its finish failed and is left to the alarm).
   */
  async cancel(): Promise<FinalStatus> {
    const phase = this.lifecycle.phase;
    // Never started here: a start arriving after this must not run it (the caller ends it in D1).
    if (phase.kind === "new" || phase.kind === "abandoned") {
      await this.abandon("canceled");
      return phase.kind === "abandoned" ? phase.as : "canceled";
    }
    const moved = phase.kind === "running" || phase.kind === "finishing";
    if (moved) {
      this.lifecycle.move({ kind: "canceled" });
      // A finish already under way (the aggregate calling models) stops its calls and ends the run canceled.
      this.finish.stopCalls();
    }
    // Concurrent cancels share one ending: none answers before the lanes are stopped and the finish is over.
    if (this.lifecycle.phase.kind === "canceled")
      await (this.canceling ??= this.endCanceled(moved).finally(() => (this.canceling = null)));
    const after = this.lifecycle.phase;
    // Still `canceled` when the finish failed or an eviction cut it short: the alarm finishes it, and only as canceled.
    return after.kind === "finished" ? after.status : "canceled";
  }

  /**
   * Stops the busy lanes (again, after an eviction: an abort is idempotent) and ends the run: the cancel
   * that moved it to `canceled` runs the finish (joining one the alarm began); a later one only waits for
   * a finish under way, so a finish that failed stays the alarm's to retry with its backoff, however
   * often cancel is called.
   */
  private async endCanceled(finish: boolean): Promise<void> {
    await Promise.all(this.scheduler.busyLaneNames().map((name) => this.env.UNITS.getByName(name).abort()));
    if (finish) await this.finish.run();
    else await this.finish.underWay();
  }

  /**
   * Whatever the alarm was set for (see alarm-plan.ts), what is due follows from the run's phase and
   * storage, so an alarm an eviction interrupted, or one an earlier instance set, does the right thing.
   */
  async alarm(): Promise<void> {
    this.alarms.fired();
    const kind = this.lifecycle.phase.kind;
    if (kind === "running" || kind === "finishing") await this.announceOrRetry();
    // Read again: a cancel may have come in meanwhile.
    switch (this.lifecycle.phase.kind) {
      case "running":
        return this.scheduler.onAlarm();
      case "finishing":
      case "canceled":
        return this.finish.run();
      case "new":
      case "abandoned":
      case "finished":
        return;
    }
  }

  /**
   * Deletes everything this object stores, for the run's deletion (src/runs/lifetime/delete.ts): its alarm
   * and, with `deleteAll`, its tables. False, deleting nothing, while the run is still this object's
   * (running, or finishing after D1 shows it ended): the deletion asks again later. Afterwards one
   * mark is written back, the phase `abandoned`, so that a start of the same run arriving late (see
   * `abandon`) cannot run it again with no row to write to.
   */
  async purge(): Promise<boolean> {
    const kind = this.lifecycle.phase.kind;
    if (kind === "running" || kind === "finishing" || kind === "canceled") return false;
    await this.alarms.clear();
    await this.ctx.storage.deleteAll();
    // deleteAll dropped the tables; the key-value one is made again for the mark.
    const store = new Store(this.ctx.storage.sql);
    new Lifecycle(store).move({ kind: "abandoned", as: "canceled" });
    return true;
  }

  /** For tests and operators: the coordinator's own view (`meta` is undefined until a start). */
  async state(): Promise<{
    meta: (RunSettings & Progress & { status: RunStatus }) | undefined;
    phase: Phase;
    alarm: AlarmNow | undefined;
    units: Partial<Record<UnitState, number>>;
    hasSecret: boolean;
  }> {
    const phase = this.lifecycle.phase;
    const settings = this.store.settings();
    const status = statusOf(phase);
    const progress = phase.kind === "finished" ? this.store.storedProgress()! : this.outbox.progress();
    return {
      meta: settings && status ? { ...settings, ...progress, status } : undefined,
      phase,
      alarm: this.alarms.known,
      units: this.unitTable.countByState(),
      hasSecret: this.store.secretEnc() !== null,
    };
  }

  /**
   * For operators and tests: the run's units in `state` (every unit when omitted), in plan order, at
   * most `limit`. Read-only: what storage holds now, so it is the same after an eviction.
   */
  async units({ state, limit = 100 }: { state?: UnitState; limit?: number } = {}): Promise<UnitView[]> {
    return this.unitTable.view(state, limit);
  }

  /**
   * Writes the run's `running` status to D1 once (the start does, or the alarm after a crash), and only
   * over `queued`: never over a final state written meanwhile.
   */
  private async announce(): Promise<void> {
    // Absent in objects started before it was stored: those announced in their start.
    if (this.store.get<boolean>("announced") !== false) return;
    await settleRun(openDb(this.env.DB), this.store.settings()!.runId, ["queued"], {
      status: "running",
      startedAt: new Date(),
    });
    this.store.put("announced", true);
  }

  /**
   * The alarm's announce: for a start that crashed before D1 showed the run running. D1 may be down:
   * the rest of the alarm goes on, and an alarm stays set to try again (one that threw could be
   * retried out of existence).
   */
  private async announceOrRetry(): Promise<void> {
    try {
      await this.announce();
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          run_id: this.store.settings()?.runId,
          error: `announcing the run failed, retried at the next alarm: ${String(err)}`,
        }),
      );
      await this.alarms.set(Date.now() + START_DEADLINE_MS, "announce");
    }
  }
}

// Each RPC call and alarm is an invocation of its own, with its own D1 and subrequest budget.
invocationsOf(RunCoordinator, "coordinator", [
  "start",
  "abandon",
  "unitContext",
  "laneUnit",
  "unitDone",
  "unitFailed",
  "saveCheckpoint",
  "checkpointOf",
  "cancel",
  "purge",
  "alarm",
  "state",
  "units",
]);
