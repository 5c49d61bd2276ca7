import type { ChatClient, EmbeddingClient } from "../../providers/index.ts";
import type { SampleCache } from "../../db/sample-cache.ts";
import type { StepCost } from "../../platform/invocation-budget.ts";

/**
 * An evaluator's name: its `POST /v1/<name>/runs` path and the `evaluator` of its runs. Any string a
 * module registers (registry.ts), so a module can be added, even from a test, without editing a list here.
 */
export type EvaluatorName = string;

/** The tenant's cache of unit results (rpl's sample cache), provided by the platform (D1). */
export type { SampleCache } from "../../db/sample-cache.ts";

/** What a unit's execution ended with; both kinds are stored as a sample. */
export type UnitOutcome = {
  status: "succeeded" | "failed";
  /** The per-unit record (for chain-determinism, the per-replay row in the original's format). */
  output: unknown;
  /** Why the unit failed, for `failed` outcomes; never contains a secret. */
  error?: string;
};

/**
 * What a unit's execution is given. Every call through `chat` and `endpoint` is counted by the
 * platform into the unit's sample (HTTP requests, retries, 429 answers; see src/runs/lanes/model-calls.ts),
 * whatever the evaluator does with the answer; a client an evaluator makes itself (a simulator) is not.
 */
export type UnitContext<Config> = {
  config: Config;
  /** A model client for this unit; `salt` distinguishes units that send identical requests (the simulator uses it). */
  chat(salt: number): ChatClient;
  /**
   * A client for another OpenAI-compatible endpoint than the config's (a judge critic's): the one
   * retry policy, stopped by cancel, reused by the lane for the same endpoint and key.
   */
  endpoint(target: { baseUrl: string; apiKey: string | undefined; timeoutMs: number }): ChatClient;
  /** A secret of the run by name (decrypted only while a lane works); undefined if the request gave none. */
  secret(name: string): string | undefined;
  /** The tenant's cache of unit results. */
  cache: SampleCache;
  /** For a unit of many steps; absent outside the platform (tests, reports), where a unit runs to its end. */
  steps?: UnitSteps;
};

/**
 * How a unit of many steps (a replay of many turns) stays within what one invocation of its lane may
 * do: before each step it asks whether the step's worst case still fits, and if not it saves its state
 * and stops; a fresh invocation (or, after an eviction, another lane) runs the unit again with the
 * saved state, and the unit continues from there rather than from the start.
 */
export type UnitSteps = {
  /** The state the unit saved when it last stopped, or null when it starts afresh. */
  readonly saved: string | null;
  /** Whether a step needing at most `ms` of wall time and `subrequests` subrequests fits now (the first step of an invocation always does). */
  fits(step: StepCost): boolean;
  /** Saves `state` and ends this invocation of the unit: it rejects, always (the lane takes it from there). */
  pause(state: string): Promise<never>;
};

/**
 * What an aggregate may use besides the samples: model access for metrics that need every sample
 * first (reasoning-quality's SS embeddings). Absent outside the platform (tests, reports).
 */
export type AggregateContext = {
  /** True when the run was canceled: no model call may be made (cancel promises none after it returns). */
  canceled: boolean;
  /** Aborts when the run is canceled during the aggregate, or its calls run out of time: pass it to every call. */
  signal: AbortSignal;
  /** An embeddings client for an OpenAI-compatible endpoint, with the one retry policy. */
  embeddings(target: { baseUrl: string; apiKey: string | undefined; timeoutMs: number }): EmbeddingClient;
  /** A secret of the run by name; undefined if the request gave none. */
  secret(name: string): string | undefined;
};

export type FollowUp = { result: unknown; next?: { config: object; publicConfig: Record<string, unknown> } };

export type StoredSample = { unitId: string; status: "succeeded" | "failed"; output: unknown; error: string | null };

/**
 * The one interface between the run platform and an evaluator: the coordinator plans and
 * aggregates, a UnitRunner executes one unit. Units are identified by stable string ids derived
 * from the config, so nothing but the config has to be stored to rebuild a unit.
 */
export interface Evaluator<Config, Result = unknown> {
  readonly name: EvaluatorName;
  /** The ids of every unit of the run, in a stable order. */
  plan(config: Config): string[];
  /**
   * Optional: the part of the config unit `unitId` needs, where a config is large and a unit needs
   * little of it (reasoning-quality: one item of thousands). A lane is handed this for each unit
   * instead of the whole config; `execute` gets it as `ctx.config`. Without it, lanes get the config.
   */
  unitConfig?(config: Config, unitId: string): Config;
  /**
   * The most one step of unit `unitId` may need (`config` as `execute` gets it): for a unit of one
   * call, that call with its retries; for a unit of many steps, its largest step. A lane starts the unit
   * only while its invocation has that much left, and hands over to a fresh one otherwise. Every
   * built-in evaluator says; a module that does not is budgeted as DEFAULT_UNIT_COST (src/runs/lanes/unit-runner.ts).
   */
  unitCost?(config: Config, unitId: string): StepCost;
  /** Runs one unit. Throwing means "retry this unit"; an outcome (even `failed`) is final. */
  execute(unitId: string, ctx: UnitContext<Config>, signal: AbortSignal): Promise<UnitOutcome>;
  /**
   * The run's result from its samples (which may be fewer than planned when a run is canceled), in the
   * order they were recorded. `samples` is a cursor over the coordinator's storage, read page by page:
   * a run may have tens of thousands of samples and a Durable Object has 128 MB, so an aggregate keeps
   * per sample only the few numbers or labels it needs, never the outputs. It may be iterated more
   * than once (each pass reads the storage again); an array works as well (tests, reports).
   */
  aggregate(config: Config, samples: Iterable<StoredSample>, ctx?: AggregateContext): Result | Promise<Result>;
  /**
   * Optional: what follows a succeeded run (rpl's auto preset escalating to its next stage). Returns
   * the result to store for this run and, if another run should follow, its config and the public
   * part of it; null leaves the run as it is.
   */
  followUp?(config: Config, result: Result): Promise<FollowUp | null>;
  /**
   * Optional: the result as the API shows it, where that differs from the stored one (chain-determinism
   * writes the harness's float fields with float lexemes, `0.0`, as the harness's summary does).
   */
  wireResult?(result: Result): unknown;
  /** Reads a stored output back from its exact JSON text. */
  parseOutput(text: string): unknown;
  /** The output stored for a unit that gave up (attempts exhausted), so its sample has the usual shape. */
  failureOutput(config: Config, unitId: string, error: string): unknown;
  /** The NDJSON line of a sample (the original tool's per-unit format). */
  exportLine(sample: StoredSample): unknown;
}

/** A stored sample row as its evaluator sees it: the output parsed by the evaluator's own parser. */
export function storedSample(
  evaluator: Evaluator<unknown>,
  row: { unitId: string; status: "succeeded" | "failed"; output: string | null; error: string | null },
): StoredSample {
  return { unitId: row.unitId, status: row.status, output: row.output === null ? null : evaluator.parseOutput(row.output), error: row.error };
}
