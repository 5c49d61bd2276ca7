import { DurableObject } from "cloudflare:workers";
import { openDb } from "../db/client.ts";
import { getSample, insertSample } from "../db/runs.ts";
import { evaluatorFor } from "../evaluators/registry.ts";
import { modelClient } from "../providers/factory.ts";
import { ProviderError, type ChatClient } from "../providers/types.ts";
import { decryptSecret } from "../secrets.ts";
import type { UnitMessage } from "../runs/messages.ts";
import { scrubSecrets } from "../scrub.ts";
import type { UnitContextReply } from "./run-coordinator.ts";

/**
 * Executes one unit (one replay, one sample, one critic call) in its own Durable Object, one per
 * (run, unit). The Queue consumer only hands the unit over and returns, so a consumer invocation
 * never lives as long as a model conversation: locally wrangler runs one consumer invocation at a
 * time, and in production each invocation may keep only 6 connections open. Here every unit is its
 * own invocation with its own connections, and its alarm (retried by the runtime) carries it
 * through evictions. The coordinator remains the judge of what is in flight.
 */
export class UnitRunner extends DurableObject<Env> {
  private controller: AbortController | null = null;

  /** Accepts a dispatched unit; a redelivered message for the same attempt is a no-op. */
  async start(msg: UnitMessage): Promise<void> {
    const current = await this.ctx.storage.get<UnitMessage>("msg");
    if (current && current.attempt >= msg.attempt) return;
    await this.ctx.storage.put("msg", msg);
    await this.ctx.storage.setAlarm(Date.now());
  }

  /** Stops the unit: no model call starts after this returns, and an unfinished unit writes nothing. */
  async abort(): Promise<void> {
    await this.ctx.storage.put("aborted", true);
    this.controller?.abort();
  }

  async alarm(): Promise<void> {
    const msg = await this.ctx.storage.get<UnitMessage>("msg");
    if (!msg || (await this.ctx.storage.get("aborted"))) return this.clear();
    const coordinator = this.env.RUNS.get(this.env.RUNS.idFromName(msg.runId));
    // RPC types cannot express `unknown` config; the reply is exactly UnitContextReply.
    const context = (await coordinator.unitContext(msg.unitId, msg.attempt)) as UnitContextReply | null;
    if (!context) return this.clear();

    const db = openDb(this.env.DB);
    // A sample may exist already if an earlier attempt wrote it and then lost its report.
    const existing = await getSample(db, msg.runId, msg.unitId);
    if (existing) {
      await coordinator.unitDone(msg.unitId, msg.attempt, existing.status);
      return this.clear();
    }

    const evaluator = evaluatorFor(context.evaluator);
    const apiKey = context.secretEnc ? await decryptSecret(this.env.SECRETS_KEY, context.secretEnc) : undefined;
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
    let outcome;
    try {
      outcome = await evaluator.execute(
        msg.unitId,
        { config: context.config, chat: (salt) => guard(modelClient(context.config, apiKey, salt)) },
        controller.signal,
      );
    } catch (err) {
      if (!controller.signal.aborted) {
        const text = scrubSecrets(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        await coordinator.unitFailed(msg.unitId, msg.attempt, text);
      }
      return this.clear();
    }
    if (controller.signal.aborted) return this.clear();
    await insertSample(db, {
      runId: msg.runId,
      unitId: msg.unitId,
      status: outcome.status,
      attempts: msg.attempt,
      output: outcome.output,
      error: outcome.error ?? null,
    });
    await coordinator.unitDone(msg.unitId, msg.attempt, outcome.status);
    await this.clear();
  }

  private async clear(): Promise<void> {
    this.controller = null;
    await this.ctx.storage.deleteAll();
  }
}
