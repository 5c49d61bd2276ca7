import { DurableObject } from "cloudflare:workers";
import { openDb } from "../db/client.ts";
import { d1SampleCache } from "../db/sample-cache.ts";
import { evaluatorFor } from "../evaluators/registry.ts";
import { createOpenAIClient, isSimModel, modelClient, PROVIDER_SECRET, ProviderError, scrubSecrets, type ChatClient } from "../providers/index.ts";
import { decryptSecret } from "../secrets.ts";
import type { UnitMessage } from "../runs/messages.ts";
import type { UnitContextReply } from "./run-coordinator.ts";

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
  private controller: AbortController | null = null;
  private context: UnitContextReply | null = null;
  // The run's decrypted secrets and endpoint clients live only while this lane has units to run.
  private secrets: Record<string, string> = {};
  private client: ChatClient | null = null;
  private endpoints = new Map<string, ChatClient>();

  // Mirrors of the stored "msg" and "aborted" (undefined: not read yet, e.g. after an eviction), so
  // that going from one unit to the next needs no storage read.
  private msg: UnitMessage | null | undefined;
  private aborted: boolean | undefined;

  private async current(): Promise<{ msg: UnitMessage | null; aborted: boolean }> {
    if (this.msg === undefined) this.msg = (await this.ctx.storage.get<UnitMessage>("msg")) ?? null;
    if (this.aborted === undefined) this.aborted = (await this.ctx.storage.get<boolean>("aborted")) ?? false;
    return { msg: this.msg, aborted: this.aborted };
  }

  /** Accepts a dispatched unit; a redelivered message for the same unit and attempt is a no-op. */
  async start(msg: UnitMessage): Promise<void> {
    const { msg: current, aborted } = await this.current();
    if (aborted) return;
    if (current && current.unitId === msg.unitId && current.attempt >= msg.attempt) return;
    this.msg = msg;
    await this.ctx.storage.put("msg", msg);
    // The alarm is what carries the lane through an eviction (the runtime retries it), but it fires
    // some time after being set; the lane starts at once and the alarm, when it fires, joins it.
    await this.ctx.storage.setAlarm(Date.now());
    // A failure here is the alarm's to retry.
    void this.kick().catch(() => {});
  }

  /** The one loop of this lane, started by a dispatch or by the alarm, whichever comes first. */
  private running: Promise<void> | null = null;

  private kick(): Promise<void> {
    return (this.running ??= this.runLane().finally(() => (this.running = null)));
  }

  /** Stops the lane: no model call starts after this returns, and an unfinished unit writes nothing. */
  async abort(): Promise<void> {
    this.aborted = true;
    await this.ctx.storage.put("aborted", true);
    this.controller?.abort();
    this.forget();
  }

  private forget(): void {
    this.context = null;
    this.secrets = {};
    this.client = null;
    this.endpoints.clear();
  }

  async alarm(): Promise<void> {
    await this.kick();
  }

  private async runLane(): Promise<void> {
    const started = Date.now();
    for (;;) {
      const { msg, aborted } = await this.current();
      if (!msg || aborted) return;
      const next = await this.runUnit(msg);
      // A newer message may have arrived for this lane while the unit ran (a re-dispatch): keep it.
      const latest = this.msg;
      if (latest && (latest.unitId !== msg.unitId || latest.attempt !== msg.attempt)) continue;
      this.msg = next;
      if (!next) {
        await this.ctx.storage.delete("msg");
        this.forget();
        return;
      }
      // Not awaited: writes apply in order, and the output gate holds the next unit's first request
      // until this one is stored, so the lane goes straight on to its next unit.
      void this.ctx.storage.put("msg", next);
      if (Date.now() - started > SLICE_MS) {
        await this.ctx.storage.setAlarm(Date.now());
        return;
      }
    }
  }

  /** Runs one unit to its sample and reports it; returns the lane's next unit. */
  private async runUnit(msg: UnitMessage): Promise<UnitMessage | null> {
    const coordinator = this.env.RUNS.get(this.env.RUNS.idFromName(msg.runId));
    // The first unit of an activation fetches the run's settings (and checks the unit is current);
    // later units come from the coordinator itself, so they are current by construction.
    if (!this.context) {
      // RPC types cannot express an `unknown` config; the reply is exactly UnitContextReply.
      const context = (await coordinator.unitContext(msg.unitId, msg.attempt)) as UnitContextReply | null;
      if (!context) return null;
      this.context = context;
      this.secrets = context.secretEnc ? (JSON.parse(await decryptSecret(this.env.SECRETS_KEY, context.secretEnc)) as Record<string, string>) : {};
    }
    const context = this.context;
    const db = openDb(this.env.DB);

    const controller = new AbortController();
    this.controller = controller;
    const guard = (client: ChatClient): ChatClient => ({
      chat: (request, options) => {
        if (controller.signal.aborted) {
          throw new ProviderError({ name: "APIUserAbortError", kind: "bad_request", message: "the run was canceled" });
        }
        return client.chat(request, { ...options, signal: controller.signal });
      },
    });
    const apiKey = this.secrets[PROVIDER_SECRET];
    try {
      const outcome = await evaluatorFor(context.evaluator).execute(
        msg.unitId,
        {
          config: context.config,
          cache: d1SampleCache(db, context.tenantId),
          // Simulator clients depend on the replay (salt); an endpoint client serves every unit of the lane.
          chat: (salt) =>
            guard(
              isSimModel((context.config as { model: string }).model)
                ? modelClient(context.config, apiKey, salt)
                : (this.client ??= modelClient(context.config, apiKey, salt)),
            ),
          endpoint: ({ baseUrl, apiKey, timeoutMs }) => {
            const key = JSON.stringify([baseUrl, apiKey ?? null, timeoutMs]);
            let client = this.endpoints.get(key);
            if (!client) this.endpoints.set(key, (client = createOpenAIClient({ baseURL: baseUrl, apiKey, timeoutMs })));
            return guard(client);
          },
          secret: (name) => this.secrets[name],
        },
        controller.signal,
      );
      if (controller.signal.aborted) return null;
      // The sample goes with the report: the coordinator records it and ends the unit in one write.
      // JSON.stringify keeps JSON.rawJSON values (exact number lexemes) as they are.
      const output = outcome.output === undefined || outcome.output === null ? null : JSON.stringify(outcome.output);
      return await coordinator.unitDone(msg.unitId, msg.attempt, { status: outcome.status, output, error: outcome.error ?? null });
    } catch (err) {
      if (controller.signal.aborted) return null;
      const text = scrubSecrets(err instanceof Error ? `${err.name}: ${err.message}` : String(err), Object.values(this.secrets));
      return coordinator.unitFailed(msg.unitId, msg.attempt, text);
    } finally {
      this.controller = null;
    }
  }
}
