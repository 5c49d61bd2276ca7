import { DurableObject } from "cloudflare:workers";
import { openDb } from "../../db/client.ts";
import { d1SampleCache } from "../../db/sample-cache.ts";
import { redactingCache, redactOutcome, runRedactor } from "../results/redact.ts";
import { loopbackAllowed } from "../../net/destination.ts";
import { evaluators } from "../../evaluators/registry.ts";
import {
  createOpenAIClient,
  isSimModel,
  modelClient,
  PROVIDER_SECRET,
  ProviderError,
  scrubSecrets,
  type ChatClient,
  type ModelSettings,
} from "../../providers/index.ts";
import { decryptSecret } from "../../secrets.ts";
import { parseLaneName, type UnitMessage } from "./messages.ts";
import type { NextUnit, UnitContextReply } from "../coordinator/types.ts";
import { addCalls, CallTally, noCalls, type ModelCalls } from "./model-calls.ts";
import { EndpointWatch, LIMITER_SHARDS, limiterGate, limiterName, type LeasingGate } from "../limiter/endpoint-gate.ts";
import { countedCoordinator, countedLimiter, noStats } from "./lane-requests.ts";
import { shardOf } from "../limiter/index.ts";
import { invocationsOf } from "../../platform/invocation.ts";
import { InvocationBudget, type StepCost } from "../../platform/invocation-budget.ts";
import { countedEnv } from "../../platform/counted-env.ts";

/** A permit outlives its attempt's timeout by this much before its limiter takes it back (see RENEW_EVERY). */
const PERMIT_MARGIN_MS = 30_000;

/**
 * What a lane keeps free in its invocation before it starts a unit whose evaluator does not say what
 * its units need (`EvaluatorPlugin.unitCost`; every built-in one does), or before it has the run's config.
 */
const DEFAULT_UNIT_COST: StepCost = { ms: 9 * 60_000, subrequests: 1_000 };

/** Where a unit that handed over mid-way stopped, as the coordinator keeps it: its own state and the calls so far. */
type Checkpoint = { state: string; calls: ModelCalls };

/** Thrown through a unit's execution when it saved its state and stops (UnitSteps.pause). */
class UnitPaused extends Error {
  /** False when the coordinator no longer had the unit in flight (the lane drops it). */
  readonly kept: boolean;
  constructor(kept: boolean) {
    super("the unit handed over to a fresh invocation");
    this.kept = kept;
  }
}

/**
 * One lane of a run (one per `${runId}:${lane}`): it executes units one at a time, each a replay,
 * a sample or a critic call. The Queue consumer only hands a lane its unit and returns, so no
 * consumer invocation lives as long as a model conversation (locally wrangler runs one consumer
 * invocation at a time; in production each invocation may keep only 6 connections open). Here each
 * lane is its own invocation with its own connections, its alarm (retried by the runtime) carries
 * it through evictions, and when a unit ends the coordinator's reply is the lane's next unit, so a
 * lane goes from one unit to the next without a Queue hop. The coordinator stays the judge of what
 * is in flight: a lane that goes silent loses its unit when the lease expires.
 */
export class UnitRunner extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    // Calls to the coordinator, the limiter and D1 are subrequests of the invocation making them.
    super(ctx, countedEnv(env));
  }

  private controller: AbortController | null = null;
  private context: UnitContextReply | null = null;
  // The run's decrypted secrets and endpoint clients live only while this lane has units to run.
  private secrets: Record<string, string> = {};
  private endpoints = new Map<string, ChatClient>();
  /**
   * The model calls of the unit running now, reported with it. One unit runs at a time, so the
   * lane's endpoint clients, made with its retry hook, count into it whichever unit they serve.
   */
  private readonly tally = new CallTally();
  /** What the unit running now saw of its endpoints' shared windows, reported with it. */
  private readonly watch = new EndpointWatch();

  /** The endpoints' gates, which keep permits between units: given back when the lane goes idle. */
  private gates: LeasingGate[] = [];
  /** The unit that handed over mid-way, with where it stopped, for this lane's next invocation. */
  private paused: (Checkpoint & { unitId: string; attempt: number }) | null = null;
  private stats = noStats();
  /** How many times this lane handed over to a fresh invocation, and the most subrequests one of its invocations made: for `invocations`. */
  private handovers = 0;
  private maxSubrequests = 0;

  /** The unit this lane runs or runs next; undefined after an eviction, until the coordinator says which. */
  private msg: NextUnit | null | undefined;
  /** The last message the Queue handed this lane, to recognise a redelivery. */
  private handed: UnitMessage | null = null;
  private aborted = false;

  /**
   * Accepts a dispatched unit; a redelivered message (the unit it has, no newer attempt) is a no-op.
   * The lane stores nothing but its alarm: the coordinator records which unit each lane runs and
   * checks every unit a lane starts without it (see `runUnit`), and a lane that lost its memory asks
   * it (see `resume`). So a run's lanes cost no storage write between units.
   */
  async start(msg: UnitMessage): Promise<void> {
    if (this.aborted) return;
    const same = (m: UnitMessage | null | undefined) => m && m.unitId === msg.unitId && m.attempt >= msg.attempt;
    if (same(this.handed) || same(this.msg)) return;
    this.handed = this.msg = msg;
    // A Queue message may be stale (a late redelivery): the unit it names is checked with the
    // coordinator before it runs, as the first unit of an activation is.
    this.context = null;
    // The alarm is what carries the lane through an eviction (the runtime retries it), but it fires
    // some time after being set; the lane starts at once and the alarm, when it fires, joins it.
    await this.ctx.storage.setAlarm(Date.now());
    // A failure here is the alarm's to retry.
    void this.kick().catch(() => {});
  }

  /** After an eviction: the unit the coordinator has in flight on this lane, if any. */
  private async resume(): Promise<UnitMessage | null> {
    const self = this.ctx.id.name ? parseLaneName(this.ctx.id.name) : null;
    if (!self) return null;
    return this.coordinator(self.runId).laneUnit(self.lane);
  }

  /** The run's coordinator, every request to it charged to the lane's invocation (lane-requests.ts). */
  private coordinator(runId: string) {
    return countedCoordinator(this.env.RUNS.get(this.env.RUNS.idFromName(runId)), () => this.stats);
  }

  /** The one loop of this lane, started by a dispatch or by the alarm, whichever comes first. */
  private running: Promise<void> | null = null;

  private kick(): Promise<void> {
    return (this.running ??= this.runLane().finally(() => (this.running = null)));
  }

  /** Stops the lane: no model call starts after this returns, and an unfinished unit writes nothing. */
  async abort(): Promise<void> {
    // Only in memory: after an eviction the coordinator, which no longer runs the run, refuses the lane's units.
    this.aborted = true;
    this.controller?.abort();
    this.forget();
  }

  /**
   * For operators and tests: what this lane holds in memory now. `unit` is the unit it runs or runs
   * next (null when idle, or after an eviction until it asks the coordinator), `running` whether its
   * loop is going, `aborted` whether its run was canceled. Read-only.
   */
  async inspect(): Promise<{ unit: UnitMessage | null; running: boolean; aborted: boolean }> {
    return { unit: this.msg ?? null, running: this.running !== null, aborted: this.aborted };
  }

  /**
   * For operators and tests: how this lane's invocations went since it was last evicted: how many
   * handed over to a fresh one, and the most subrequests one of them made. Read-only.
   */
  async invocations(): Promise<{ handovers: number; maxSubrequests: number }> {
    return { handovers: this.handovers, maxSubrequests: this.maxSubrequests };
  }

  private forget(): void {
    this.context = null;
    this.secrets = {};
    this.endpoints.clear();
    this.paused = null;
    // The permits this lane kept between its calls go back to their limiters for others to use.
    const gates = this.gates;
    this.gates = [];
    for (const gate of gates) void gate.close().catch(() => {});
  }

  async alarm(): Promise<void> {
    await this.kick();
  }

  /**
   * Runs units back to back while the invocation has room for the next (see unitCost), then hands
   * over to a fresh invocation (its alarm); a unit of many steps may hand over mid-way (UnitSteps).
   */
  private async runLane(): Promise<void> {
    const budget = new InvocationBudget();
    let handover: string | null = null;
    try {
      for (;;) {
        if (this.msg === undefined) this.msg = await this.resume();
        const msg = this.msg;
        if (!msg || this.aborted) return;
        if (!budget.take(this.unitCost(msg))) {
          handover = "before a unit";
          await this.ctx.storage.setAlarm(Date.now());
          return;
        }
        const next = await this.runUnit(msg, budget);
        if (next === PAUSED) {
          handover = "within a unit";
          await this.ctx.storage.setAlarm(Date.now());
          return;
        }
        // The coordinator hands a lane a unit only while none is in flight on it, so a next unit is
        // its word and a Queue message that came meanwhile is stale. Without one, a message that came
        // meanwhile (a re-dispatch after this lane's lease ran out) is the lane's unit.
        if (next) this.msg = next;
        else if (this.msg === msg) {
          this.msg = null;
          this.forget();
          return;
        }
      }
    } finally {
      this.maxSubrequests = Math.max(this.maxSubrequests, budget.used());
      if (handover) this.handovers++;
      this.report(budget, handover);
    }
  }

  /**
   * What the unit's first step may need (for a unit of many steps, its largest), as its evaluator says:
   * a lane starts the unit only while its invocation has that much left. A unit of many steps also asks
   * before each further step (UnitSteps), so it hands over mid-unit if it must.
   */
  private unitCost(msg: NextUnit): StepCost {
    const context = this.context;
    if (!context) return DEFAULT_UNIT_COST;
    return evaluators.get(context.evaluator).unitCost?.(msg.config ?? context.config, msg.unitId) ?? DEFAULT_UNIT_COST;
  }

  /** One line per activation that called an endpoint (simulator runs stay quiet): what it cost, and whether it handed over. */
  private report(budget: InvocationBudget, handover: string | null): void {
    const s = this.stats;
    this.stats = noStats();
    if (s.modelRequests === 0 && s.limiterRequests === 0) return;
    const line = {
      level: "info",
      event: "lane",
      lane: this.ctx.id.name ?? null,
      units: s.units,
      model_requests: s.modelRequests,
      limiter_requests: s.limiterRequests,
      coordinator_requests: s.coordinatorRequests,
      subrequests: budget.used(),
      handover,
    };
    console.log(JSON.stringify(line));
  }

  /**
   * Runs one unit to its sample and reports it; returns the lane's next unit, or PAUSED when the unit
   * saved where it is and hands over to a fresh invocation (`budget` ran short).
   */
  private async runUnit(msg: NextUnit, budget: InvocationBudget): Promise<NextUnit | null | typeof PAUSED> {
    const coordinator = this.coordinator(msg.runId);
    // The first unit of an activation fetches the run's settings (and checks the unit is current);
    // later units come from the coordinator itself, so they are current by construction.
    let checkpoint: string | null | undefined;
    if (!this.context) {
      const context = await coordinator.unitContext(msg.unitId, msg.attempt);
      // A stale message: the lane may still have a unit the coordinator gave it (say, after a crash).
      if (!context) return this.resume();
      this.context = context;
      this.secrets = context.secretEnc
        ? (JSON.parse(await decryptSecret(this.env.SECRETS_KEY, context.secretEnc)) as Record<string, string>)
        : {};
      checkpoint = context.checkpoint;
    }
    // A next unit handed with its own part of the config (EvaluatorPlugin.unitConfig) runs on that part.
    const context = msg.config === undefined ? this.context : { ...this.context, config: msg.config };
    const db = openDb(this.env.DB);
    this.stats.units++;

    // Where the unit stopped if it handed over before: in memory when this lane did it, else (after an
    // eviction, or for an attempt after a lost one) as the coordinator kept it, which says so with
    // the unit's context or, for a later attempt handed over by a report's reply, when asked.
    const continued = this.paused?.unitId === msg.unitId;
    let from: Checkpoint | null = continued ? this.paused : null;
    this.paused = null;
    if (!from && checkpoint === undefined && msg.attempt > 1) checkpoint = await coordinator.checkpointOf(msg.unitId);
    if (!from && checkpoint) from = JSON.parse(checkpoint) as Checkpoint;

    const controller = new AbortController();
    this.controller = controller;
    // Every model call of the unit goes through here: stopped by cancel, and counted (requests,
    // retries, 429s) for its sample, whatever the evaluator does with the answers.
    const tally = this.tally;
    tally.reset();
    if (from) addCalls(tally.calls, from.calls);
    // A unit continued in this lane keeps what it saw of its endpoints before the hand-over.
    if (!continued) this.watch.take();
    // The first step of a unit in an invocation always runs (a fresh invocation could do no better).
    let stepped = false;
    const steps = {
      saved: from?.state ?? null,
      fits: (cost: StepCost) => {
        const fits = budget.take(cost) || !stepped;
        stepped = true;
        return fits;
      },
      pause: async (unredacted: string): Promise<never> => {
        // No key of the run is stored, not even for a moment: a model that repeated one in the
        // conversation continues with `[REDACTED]` there (from memory too, so it does not matter
        // which lane continues the unit).
        const state = runRedactor(this.secrets).text(unredacted);
        const calls = addCalls(noCalls(), tally.calls);
        const kept = await coordinator.saveCheckpoint(
          msg.unitId,
          msg.attempt,
          JSON.stringify({ state, calls } satisfies Checkpoint),
        );
        if (kept) this.paused = { unitId: msg.unitId, attempt: msg.attempt, state, calls };
        throw new UnitPaused(kept);
      },
    };
    const guard = (client: ChatClient): ChatClient => {
      const counted = tally.chat(client);
      return {
        chat: (request, options) => {
          if (controller.signal.aborted) {
            throw new ProviderError({
              name: "APIUserAbortError",
              kind: "bad_request",
              message: "the run was canceled",
            });
          }
          return counted.chat(request, { ...options, signal: controller.signal });
        },
      };
    };
    // An OpenAI-compatible endpoint's client (with the one retry policy) serves every unit of the lane
    // that calls the same endpoint with the same key; it reports its retries to the lane's tally.
    const endpoint = ({
      baseUrl,
      apiKey,
      timeoutMs,
    }: {
      baseUrl: string;
      apiKey: string | undefined;
      timeoutMs: number;
    }): ChatClient => {
      const key = JSON.stringify([baseUrl, apiKey ?? null, timeoutMs]);
      let client = this.endpoints.get(key);
      if (!client) {
        // Every attempt to a real endpoint holds a permit of the limiter shared by the tenant's runs
        // on that endpoint and key (endpoint-limiter.ts; this lane's shard of it); the run's lanes
        // bound it from above, and a concurrency the request gave opens a fresh window to it. The gate
        // keeps its permits between calls and units (endpoint-gate.ts).
        const name = limiterName(
          context.tenantId,
          baseUrl,
          apiKey,
          shardOf(this.ctx.id.name ?? "", LIMITER_SHARDS),
          LIMITER_SHARDS,
        );
        const opening = context.concurrency ?? undefined;
        const gate = limiterGate(
          async () => countedLimiter(this.env.LIMITERS.getByName(await name), () => this.stats),
          timeoutMs + PERMIT_MARGIN_MS,
          this.watch,
          { opening },
        );
        this.gates.push(gate);
        client = createOpenAIClient({
          baseURL: baseUrl,
          apiKey,
          timeoutMs,
          onRetry: tally.onRetry,
          allowLoopback: loopbackAllowed(this.env),
          gate,
        });
        this.endpoints.set(key, client);
      }
      return guard(client);
    };
    const apiKey = this.secrets[PROVIDER_SECRET];
    const settings = context.config as ModelSettings;
    let outcome;
    try {
      outcome = await evaluators.get(context.evaluator).execute(
        msg.unitId,
        {
          config: context.config,
          // rpl writes its cache inside execute(), before the outcome reaches the redaction below.
          cache: redactingCache(d1SampleCache(db, context.tenantId), this.secrets),
          // Simulator clients depend on the replay (salt). Any other model is the config's endpoint, as
          // modelClient makes it, but made here so that its retries are counted.
          chat: (salt) => {
            if (isSimModel(settings.model) || !settings.provider)
              return guard(modelClient(context.config, apiKey, salt, loopbackAllowed(this.env)));
            return endpoint({ baseUrl: settings.provider.base_url, apiKey, timeoutMs: settings.timeout_s * 1000 });
          },
          endpoint,
          secret: (name) => this.secrets[name],
          steps,
        },
        controller.signal,
      );
    } catch (err) {
      if (controller.signal.aborted) return null;
      // The unit saved where it is: the lane's next invocation continues it (or, if the coordinator
      // no longer had it in flight, the lane asks which unit is its own, as for a stale message).
      if (err instanceof UnitPaused) return err.kept ? PAUSED : this.resume();
      this.stats.modelRequests += tally.calls.requests;
      const text = scrubSecrets(
        err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        Object.values(this.secrets),
      );
      return coordinator.unitFailed(msg.unitId, msg.attempt, text, tally.reset());
    } finally {
      this.controller = null;
    }
    if (controller.signal.aborted) return null;
    // No key of the run is stored, in any form it comes back in: an endpoint's error or a model's answer.
    outcome = redactOutcome(outcome, this.secrets);
    // The sample goes with the report: the coordinator records it and ends the unit in one write.
    // JSON.stringify keeps JSON.rawJSON values (exact number lexemes) as they are. A report that
    // fails (the coordinator was reset) is not the unit's failure: it throws, and the lane's alarm
    // runs the unit again.
    const output = outcome.output === undefined || outcome.output === null ? null : JSON.stringify(outcome.output);
    this.stats.modelRequests += tally.calls.requests;
    return coordinator.unitDone(msg.unitId, msg.attempt, {
      status: outcome.status,
      output,
      error: outcome.error ?? null,
      calls: tally.reset(),
      endpoint: this.watch.take(),
    });
  }
}

const PAUSED = Symbol("paused");

// Each RPC call and alarm is an invocation of its own, with its own D1 and subrequest budget.
invocationsOf(UnitRunner, "lane", ["start", "abort", "inspect", "invocations", "alarm"]);
