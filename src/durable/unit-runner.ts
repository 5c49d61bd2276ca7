import { DurableObject } from "cloudflare:workers";
import { openDb } from "../db/client.ts";
import { d1SampleCache } from "../db/sample-cache.ts";
import { redactingCache, redactOutcome } from "../runs/redact.ts";
import { loopbackAllowed } from "../net/destination.ts";
import { evaluatorFor } from "../evaluators/registry.ts";
import {
  createOpenAIClient,
  isSimModel,
  modelClient,
  PROVIDER_SECRET,
  ProviderError,
  scrubSecrets,
  type ChatClient,
  type ModelSettings,
} from "../providers/index.ts";
import { decryptSecret } from "../secrets.ts";
import { parseLaneName, type UnitMessage } from "../runs/messages.ts";
import type { NextUnit, UnitContextReply } from "./coordinator/types.ts";
import { CallTally } from "./model-calls.ts";
import { EndpointWatch, limiterGate, limiterName } from "./endpoint-gate.ts";
import { invocationsOf } from "../platform/invocation.ts";
import { countedEnv } from "../platform/counted-env.ts";

/** A permit outlives its attempt's timeout by this much before its limiter takes it back. */
const PERMIT_MARGIN_MS = 30_000;

/** One alarm invocation runs units back to back for at most this long, then hands over to a fresh one. */
const SLICE_MS = 5 * 60_000;

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
    return this.env.RUNS.get(this.env.RUNS.idFromName(self.runId)).laneUnit(self.lane);
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

  private forget(): void {
    this.context = null;
    this.secrets = {};
    this.endpoints.clear();
  }

  async alarm(): Promise<void> {
    await this.kick();
  }

  private async runLane(): Promise<void> {
    const started = Date.now();
    for (;;) {
      if (this.msg === undefined) this.msg = await this.resume();
      const msg = this.msg;
      if (!msg || this.aborted) return;
      const next = await this.runUnit(msg);
      // The coordinator hands a lane a unit only while none is in flight on it, so a next unit is
      // its word and a Queue message that came meanwhile is stale. Without one, a message that came
      // meanwhile (a re-dispatch after this lane's lease ran out) is the lane's unit.
      if (next) this.msg = next;
      else if (this.msg === msg) {
        this.msg = null;
        this.forget();
        return;
      }
      if (Date.now() - started > SLICE_MS) {
        await this.ctx.storage.setAlarm(Date.now());
        return;
      }
    }
  }

  /** Runs one unit to its sample and reports it; returns the lane's next unit. */
  private async runUnit(msg: NextUnit): Promise<NextUnit | null> {
    const coordinator = this.env.RUNS.get(this.env.RUNS.idFromName(msg.runId));
    // The first unit of an activation fetches the run's settings (and checks the unit is current);
    // later units come from the coordinator itself, so they are current by construction.
    if (!this.context) {
      // RPC types cannot express an `unknown` config; the reply is exactly UnitContextReply.
      const context = (await coordinator.unitContext(msg.unitId, msg.attempt)) as UnitContextReply | null;
      // A stale message: the lane may still have a unit the coordinator gave it (say, after a crash).
      if (!context) return this.resume();
      this.context = context;
      this.secrets = context.secretEnc ? (JSON.parse(await decryptSecret(this.env.SECRETS_KEY, context.secretEnc)) as Record<string, string>) : {};
    }
    // A next unit handed with its own part of the config (Evaluator.unitConfig) runs on that part.
    const context = msg.config === undefined ? this.context : { ...this.context, config: msg.config };
    const db = openDb(this.env.DB);

    const controller = new AbortController();
    this.controller = controller;
    // Every model call of the unit goes through here: stopped by cancel, and counted (requests,
    // retries, 429s) for its sample, whatever the evaluator does with the answers.
    const tally = this.tally;
    tally.reset();
    this.watch.take();
    const guard = (client: ChatClient): ChatClient => {
      const counted = tally.chat(client);
      return {
        chat: (request, options) => {
          if (controller.signal.aborted) {
            throw new ProviderError({ name: "APIUserAbortError", kind: "bad_request", message: "the run was canceled" });
          }
          return counted.chat(request, { ...options, signal: controller.signal });
        },
      };
    };
    // An OpenAI-compatible endpoint's client (with the one retry policy) serves every unit of the lane
    // that calls the same endpoint with the same key; it reports its retries to the lane's tally.
    const endpoint = ({ baseUrl, apiKey, timeoutMs }: { baseUrl: string; apiKey: string | undefined; timeoutMs: number }): ChatClient => {
      const key = JSON.stringify([baseUrl, apiKey ?? null, timeoutMs]);
      let client = this.endpoints.get(key);
      if (!client) {
        // Every attempt to a real endpoint holds a permit of the limiter shared by the tenant's runs
        // on that endpoint and key (endpoint-limiter.ts); the run's lanes bound it from above.
        const name = limiterName(context.tenantId, baseUrl, apiKey);
        const gate = limiterGate(async () => this.env.LIMITERS.getByName(await name), timeoutMs + PERMIT_MARGIN_MS, this.watch);
        client = createOpenAIClient({ baseURL: baseUrl, apiKey, timeoutMs, onRetry: tally.onRetry, allowLoopback: loopbackAllowed(this.env), gate });
        this.endpoints.set(key, client);
      }
      return guard(client);
    };
    const apiKey = this.secrets[PROVIDER_SECRET];
    const settings = context.config as ModelSettings;
    let outcome;
    try {
      outcome = await evaluatorFor(context.evaluator).execute(
        msg.unitId,
        {
          config: context.config,
          // rpl writes its cache inside execute(), before the outcome reaches the redaction below.
          cache: redactingCache(d1SampleCache(db, context.tenantId), this.secrets),
          // Simulator clients depend on the replay (salt). Any other model is the config's endpoint, as
          // modelClient makes it, but made here so that its retries are counted.
          chat: (salt) => {
            if (isSimModel(settings.model) || !settings.provider) return guard(modelClient(context.config, apiKey, salt, loopbackAllowed(this.env)));
            return endpoint({ baseUrl: settings.provider.base_url, apiKey, timeoutMs: settings.timeout_s * 1000 });
          },
          endpoint,
          secret: (name) => this.secrets[name],
        },
        controller.signal,
      );
    } catch (err) {
      if (controller.signal.aborted) return null;
      const text = scrubSecrets(err instanceof Error ? `${err.name}: ${err.message}` : String(err), Object.values(this.secrets));
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
    return coordinator.unitDone(msg.unitId, msg.attempt, { status: outcome.status, output, error: outcome.error ?? null, calls: tally.reset(), endpoint: this.watch.take() });
  }
}

// Each RPC call and alarm is an invocation of its own, with its own D1 and subrequest budget.
invocationsOf(UnitRunner, "lane", ["start", "abort", "inspect", "alarm"]);
