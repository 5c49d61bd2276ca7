// Finishing a run, once every unit has ended or it was canceled: D1 gets every sample and the final
// progress, the evaluator aggregates (its model calls within a time budget, stopped by a cancel), a
// follow-up run is created when the evaluator asks for one, D1 gets the final state and the event
// goes out, and only then does this object record its own end. A finish can be cut short anywhere:
// its heartbeat keeps the alarm a few seconds ahead while it runs, and a finish that throws is tried
// again with backoff, a bounded number of times.
import { openDb } from "../../db/client.ts";
import { getRunById, settleRun } from "../../db/runs.ts";
import { evaluators } from "../../evaluators/registry.ts";
import {
  storedSample,
  type AggregateContext,
  type EvaluatorName,
  type FollowUp,
  type StoredSample,
} from "../plugin/types.ts";
import { loopbackAllowed } from "../../net/destination.ts";
import { storedSizeLimitOf } from "../../platform/storage-guard.ts";
import { createOpenAIEmbeddingClient } from "../../providers/index.ts";
import { countRuns, releaseRuns } from "../../quotas/index.ts";
import { storeBasis } from "../results/comparison-store.ts";
import { runRedactor } from "../results/redact.ts";
import { dropUnusedResult, storeResult } from "../results/result-store.ts";
import { decryptSecret } from "../../secrets.ts";
import { enqueueRunEvent } from "../webhooks/enqueue.ts";
import { addCalls, CallTally, noCalls, type ModelCalls } from "../lanes/model-calls.ts";
import type { Alarm } from "./alarm-plan.ts";
import type { FinalStatus, Lifecycle } from "./lifecycle.ts";
import { progressColumns, type Outbox } from "./outbox.ts";
import type { Store } from "./store.ts";
import type { Progress, RunSettings } from "./types.ts";

/**
 * While a finish goes, the alarm is kept this far ahead (pushed forward every FINISH_BEAT_MS): if the
 * object crashes or is evicted mid-finish, the alarm fires within seconds of it and finishes again.
 * Alarms are durable and the runtime re-creates the object to run one, in production as locally.
 */
const FINISH_HEARTBEAT_MS = 5_000;
const FINISH_BEAT_MS = 2_000;
/**
 * A finish that throws (D1 down, an aggregate bug) is tried again with backoff (5 s doubling, at
 * most 5 minutes apart), this many times in all (about 20 minutes); then the run ends without a
 * result, saying why, rather than trying (and calling models in the aggregate) for ever.
 */
const MAX_FINISH_TRIES = 10;
/** Characters of a finish's error kept for the run's error. */
const FINISH_ERROR_CHARS = 4_000;
const finishRetryMs = (tries: number) => Math.min(FINISH_HEARTBEAT_MS * 2 ** (tries - 1), 5 * 60_000);
/** How long an aggregate may wait on model calls (SS embeddings) before they are stopped and its fallback applies. */
const AGGREGATE_CALLS_BUDGET_MS = 5 * 60_000;

/** A follow-up run as the finish asks for it: the part of `NewRun` (src/runs/creation/create.ts) it fills in. */
export type FollowUpRun = NonNullable<FollowUp["next"]> & {
  evaluator: EvaluatorName;
  secretEnc: string | null;
  webhookUrl: string | undefined;
  /** Undefined: the follow-up adapts, as the run it follows did. */
  concurrency: number | undefined;
  leaseMs: number;
  body: { follow_up_of: string };
  idempotencyKey: string;
  /** Counts the follow-up in the tenant's quotas (never refuses it: the run it continues was admitted). */
  admit: (runs: { id: string; units: number }[]) => Promise<void>;
  /** Takes that count back when the follow-up is not written (a finish that ran twice wrote it first). */
  release: (runs: { id: string; units: number }[]) => Promise<void>;
};

/**
 * What a finish works with: the coordinator's storage and its other parts. `env` is read at each use.
 * `createRun`: the platform's run creation (idempotent on the run's key), which returns the run.
 */
export type FinishParts = {
  env: () => Env;
  store: Store;
  lifecycle: Lifecycle;
  outbox: Outbox;
  alarm: Alarm;
  createRun: (tenantId: string, run: FollowUpRun) => Promise<{ id: string }>;
};

function withNextRun(result: unknown, nextRunId: string): unknown {
  return { ...(result as Record<string, unknown>), next_run_id: nextRunId };
}

export class Finish {
  /** The finish running in this instance, which any other caller joins. */
  private running: Promise<void> | null = null;
  /** Stops the model calls of an aggregate under way (cancel, or its time budget). */
  private aggregateCalls: AbortController | null = null;

  private readonly p: FinishParts;

  constructor(parts: FinishParts) {
    this.p = parts;
  }

  /**
   * Finishes the run, once: the heartbeat's alarm or a cancel may come while a long aggregate runs,
   * and joins it. Never rejects: a finish that failed has set its retry alarm, and an alarm handler
   * that threw could be retried out of existence.
   */
  run(): Promise<void> {
    return (this.running ??= this.once()
      // The message logged is the redacted one `once` stored: a log keeps no key either.
      .catch(() =>
        console.error(
          JSON.stringify({
            level: "error",
            run_id: this.p.store.settings()?.runId,
            error: `finish failed, retried with backoff: ${this.p.store.get<string>("finishError")}`,
          }),
        ),
      )
      .finally(() => (this.running = null)));
  }

  /** The finish under way, if any: a cancel that finds the run already canceled waits for it. */
  underWay(): Promise<void> | null {
    return this.running;
  }

  /** A cancel: the aggregate under way, if any, stops calling models and the run ends canceled. */
  stopCalls(): void {
    this.aggregateCalls?.abort(new Error("the run was canceled, and no model call is made after cancel"));
  }

  private async once(): Promise<void> {
    const { store, lifecycle, outbox, alarm } = this.p;
    if (lifecycle.phase.kind === "finished") return;
    const tries = (store.get<number>("finishTries") ?? 0) + 1;
    store.put("finishTries", tries);
    if (tries > MAX_FINISH_TRIES) return this.giveUp(tries - 1);
    const heartbeat = await this.heartbeat();
    let final: { status: FinalStatus; calls: ModelCalls };
    try {
      final = await this.aggregateAndStore();
    } catch (err) {
      await heartbeat.stop();
      // Kept (redacted) for the run's error if the finish never succeeds; tried again with backoff.
      // A driver's message may quote the query's parameters, megabytes of them: the limit's own
      // message names what was too large, and any message is cut to what an error needs.
      const tooLarge = storedSizeLimitOf(err);
      const message = tooLarge?.message ?? (err instanceof Error ? err.message : String(err));
      store.put("finishError", runRedactor(await this.secrets()).text(message.slice(0, FINISH_ERROR_CHARS)));
      // A value too large to store is as large on every try: the run ends failed now, saying what.
      if (tooLarge) return this.giveUp(tries);
      await alarm.set(Date.now() + finishRetryMs(tries), "finish-retry");
      throw err;
    }
    await heartbeat.stop();
    this.end(final.status, { ...outbox.progress(), calls: final.calls });
    await alarm.clear();
  }

  /** This object's own end, in one write: the final progress, no secret, the phase, an empty outbox. */
  private end(status: FinalStatus, progress: Progress): void {
    const { store, lifecycle, outbox } = this.p;
    store.writeMeta(store.settings()!, progress);
    store.put("secret", null);
    lifecycle.move({ kind: "finished", status });
    // D1 holds the samples from here on.
    outbox.clear();
  }

  /**
   * Keeps the alarm FINISH_HEARTBEAT_MS ahead until `stop`: while this object lives the finish goes
   * on, and once it crashes or is evicted the alarm fires within seconds and finishes again. Not a
   * bound on the finish's length: the aggregate's model calls have their own budget.
   */
  private async heartbeat(): Promise<{ stop(): Promise<void> }> {
    const { alarm } = this.p;
    await alarm.set(Date.now() + FINISH_HEARTBEAT_MS, "finish-heartbeat");
    let beat: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      beat = beat.then(() => alarm.set(Date.now() + FINISH_HEARTBEAT_MS, "finish-heartbeat")).catch(() => {});
    }, FINISH_BEAT_MS);
    return {
      stop: async () => {
        clearInterval(timer);
        // A beat under way must not set the alarm again after the finish deletes it.
        await beat;
      },
    };
  }

  /**
   * The end of a run whose finish kept failing: no result, the reason in its error, its final event;
   * a canceled run stays canceled. Written only over a status that is not final, like any finish.
   */
  private async giveUp(tries: number): Promise<void> {
    const { store, lifecycle, outbox, alarm } = this.p;
    const settings = store.settings()!;
    const status: FinalStatus = lifecycle.phase.kind === "canceled" ? "canceled" : "failed";
    const db = openDb(this.p.env().DB);
    await settleRun(db, settings.runId, ["queued", "running"], {
      status,
      error: `the run's finish failed ${tries} times, so it has no result; last error: ${store.get<string>("finishError") ?? "unknown"}`,
      ...progressColumns(outbox.progress()),
      finishedAt: new Date(),
    });
    const run = await getRunById(db, settings.runId);
    if (run) await enqueueRunEvent(this.p.env(), run, `msg_final_${settings.runId}`);
    this.end(status, outbox.progress());
    await alarm.clear();
  }

  /** The run's secrets (decrypted), or none once they are dropped or cannot be read. */
  private async secrets(): Promise<Record<string, string>> {
    const secretEnc = this.p.store.secretEnc();
    if (!secretEnc) return {};
    try {
      return JSON.parse(await decryptSecret(this.p.env().SECRETS_KEY, secretEnc)) as Record<string, string>;
    } catch {
      return {};
    }
  }

  /**
   * Model access for the aggregate. The run's secrets are decrypted only for a run still going (a
   * canceled one makes no model call), and a secret that cannot be decrypted is simply absent, so the
   * backend's call fails and its fallback applies rather than the whole run. Its calls are counted
   * in `tally`, into the run's.
   */
  private async aggregateContext(canceled: boolean, signal: AbortSignal, tally: CallTally): Promise<AggregateContext> {
    const secrets = canceled ? {} : await this.secrets();
    const env = this.p.env();
    return {
      canceled,
      signal,
      embeddings: ({ baseUrl, apiKey, timeoutMs }) =>
        tally.embeddings(
          createOpenAIEmbeddingClient({
            baseURL: baseUrl,
            apiKey,
            timeoutMs,
            onRetry: tally.onRetry,
            allowLoopback: loopbackAllowed(env),
          }),
        ),
      secret: (name) => secrets[name],
    };
  }

  /** The aggregate, with its model calls' budget; an aggregate that throws is the run's error, not the finish's. */
  private async aggregate(
    samples: Iterable<StoredSample>,
    tally: CallTally,
  ): Promise<{ result: unknown; error: string | null }> {
    const { store, lifecycle } = this.p;
    const calls = (this.aggregateCalls = new AbortController());
    const budget = setTimeout(
      () =>
        calls.abort(
          new Error(
            `the aggregate's model calls took over ${AGGREGATE_CALLS_BUDGET_MS / 60_000} minutes and were stopped`,
          ),
        ),
      AGGREGATE_CALLS_BUDGET_MS,
    );
    try {
      const context = await this.aggregateContext(lifecycle.phase.kind === "canceled", calls.signal, tally);
      return {
        result: await evaluators.get(store.settings()!.evaluator).aggregate(store.config(), samples, context),
        error: null,
      };
    } catch (err) {
      return { result: null, error: `aggregation failed: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      clearTimeout(budget);
      this.aggregateCalls = null;
    }
  }

  /**
   * The follow-up run an evaluator may ask for after a successful aggregate, and the result that
   * names it. Its idempotency key makes a finish that runs again find the same follow-up, not a second.
   */
  private async followUp(
    settings: RunSettings,
    result: unknown,
  ): Promise<{ result: unknown; nextRunId: string | null }> {
    const evaluator = evaluators.get(settings.evaluator);
    if (!evaluator.followUp) return { result, nextRunId: null };
    const { store } = this.p;
    const follow = await evaluator.followUp(store.config(), result);
    let nextRunId: string | null = null;
    if (follow?.next) {
      const run = await getRunById(openDb(this.p.env().DB), settings.runId);
      const next = await this.p.createRun(settings.tenantId, {
        evaluator: settings.evaluator as EvaluatorName,
        config: follow.next.config,
        publicConfig: follow.next.publicConfig,
        secretEnc: store.secretEnc(),
        webhookUrl: run?.webhookUrl ?? undefined,
        concurrency: store.get<boolean>("adaptive") === true ? undefined : settings.concurrency,
        leaseMs: settings.leaseMs,
        body: { follow_up_of: settings.runId },
        idempotencyKey: `follow-up:${settings.runId}`,
        admit: (runs) => countFollowUp(this.p.env(), settings.tenantId, runs),
        release: (runs) => releaseRuns(this.p.env(), settings.tenantId, runs),
      });
      nextRunId = next.id;
    }
    if (!follow) return { result, nextRunId };
    return { result: nextRunId ? withNextRun(follow.result, nextRunId) : follow.result, nextRunId };
  }

  /**
   * The comparer's basis of a succeeded run, built from its config, result and samples (read again from
   * storage, page by page) and kept under the run's prefix in R2; nothing for an evaluator without one.
   */
  private async keepBasis(
    settings: RunSettings,
    result: unknown,
    samples: Iterable<StoredSample>,
    redact: ReturnType<typeof runRedactor>,
  ): Promise<void> {
    const comparer = evaluators.get(settings.evaluator).comparer;
    if (!comparer) return;
    const basis = await comparer.basis({ config: this.p.store.config(), result, samples });
    if (basis !== null) await storeBasis(this.p.env().RESULTS, settings.runId, redact.value(basis));
  }

  /** The finish up to this object's own end: progress, aggregate, follow-up, D1 and the event. */
  private async aggregateAndStore(): Promise<{ status: FinalStatus; calls: ModelCalls }> {
    const { store, lifecycle, outbox } = this.p;
    const settings = store.settings()!;
    const db = openDb(this.p.env().DB);
    // D1 holds every sample, and its progress counts them all, before the aggregate starts: an
    // aggregate may take minutes (SS embeddings), and the progress must not lag the samples meanwhile.
    await outbox.flushAll();
    const evaluator = evaluators.get(settings.evaluator);
    // Parsed one at a time as the aggregate reads them: the outbox pages through its rows, and no
    // array of every sample is made here.
    const rows = outbox.samples();
    const samples: Iterable<StoredSample> = {
      *[Symbol.iterator]() {
        for (const r of rows)
          yield storedSample(evaluator, { unitId: r.unit_id, status: r.status, output: r.output, error: r.error });
      },
    };
    const tally = new CallTally();
    let { result, error } = await this.aggregate(samples, tally);
    // Read again: a cancel may have come in while the aggregate ran.
    const progress = outbox.progress();
    let status: FinalStatus = lifecycle.phase.kind === "canceled" ? "canceled" : error ? "failed" : "succeeded";
    if (status === "succeeded" && settings.total > 0 && progress.failed === settings.total) {
      status = "failed";
      error = `all ${settings.total} units failed; first error: ${outbox.firstError() ?? "unknown"}`;
    }
    let nextRunId: string | null = null;
    if (status === "succeeded") {
      try {
        ({ result, nextRunId } = await this.followUp(settings, result));
      } catch (err) {
        status = "failed";
        error = `follow-up failed: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    // D1 and the event first, then this object's own end (see `once`): if anything here fails or the
    // object is evicted, the alarm runs the whole finish again (the D1 write is idempotent, and the
    // event keeps one webhook-id per run, so a receiver can drop a repeat).
    const calls = addCalls(addCalls(noCalls(), progress.calls), tally.calls);
    // An aggregate's or follow-up's message may quote what an endpoint said: no key of the run is kept.
    const redact = runRedactor(await this.secrets());
    // What a comparison of this run will read (per-item scores, a few figures of the result), kept in R2
    // before the row says succeeded: a comparison never reads the samples (src/routes/compare.ts).
    // A basis that cannot be built or kept does not fail the run: the run's result stands, and only its
    // comparisons are affected (judge, rpl and chain-determinism rebuild a basis from the result; a
    // reasoning-quality run without one is a 409 to compare).
    if (status === "succeeded" && result !== null) {
      await this.keepBasis(settings, result, samples, redact).catch((err: unknown) => {
        const why = redact.text(err instanceof Error ? err.message : String(err));
        console.error(
          JSON.stringify({
            level: "error",
            run_id: settings.runId,
            error: `keeping the comparison basis failed: ${why}`,
          }),
        );
      });
    }
    // A result too large for the row goes to R2 first, the row then pointing at it.
    const stored = await storeResult(
      this.p.env(),
      settings.runId,
      evaluators.get(settings.evaluator),
      result === null ? null : redact.value(result),
    );
    // Only over a status that is not final: a run ended in D1 by someone else (a cancel that found no
    // coordinator, before this one started) keeps that end; a finish run twice writes the same.
    const settled = await settleRun(db, settings.runId, ["queued", "running"], {
      status,
      ...stored,
      error: error === null ? null : redact.text(error),
      ...progressColumns({ ...progress, calls }),
      finishedAt: new Date(),
    });
    if (!settled.changed) await dropUnusedResult(this.p.env(), stored, settled.run);
    // A run that hands over to a follow-up is not the end of the work: only the last one notifies.
    const run = await getRunById(db, settings.runId);
    if (run && !nextRunId) await enqueueRunEvent(this.p.env(), run, `msg_final_${settings.runId}`);
    return { status, calls };
  }
}

/**
 * Counts a follow-up run in its tenant's quotas. A count that fails is logged and the follow-up goes
 * on: failing it would fail a run the tenant was admitted for; the concurrent count still finds the
 * follow-up in D1 (src/quotas/tenant-quota.ts), only its minute and units go uncounted.
 */
async function countFollowUp(env: Env, tenantId: string, runs: { id: string; units: number }[]): Promise<void> {
  try {
    await countRuns(env, tenantId, runs);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "warn",
        run_id: runs[0]?.id,
        error: `counting a follow-up run in the tenant's quotas failed: ${String(err)}`,
      }),
    );
  }
}
