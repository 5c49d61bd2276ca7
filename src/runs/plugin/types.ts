/**
 * The shapes the platform and an evaluator plug-in exchange (the contract itself is plugin.ts).
 */
import type { ChatClient, EmbeddingClient } from "../../providers/index.ts";
import type { SampleCache } from "../../db/sample-cache.ts";
import type { StepCost } from "../../platform/invocation-budget.ts";

/**
 * An evaluator's name: its `POST /v1/<name>/runs` path and the `evaluator` of its runs. Any string a
 * plug-in registers (src/evaluators/registry.ts), so one can be added, even from a test, without editing a list here.
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

/** A stored sample row as its evaluator sees it: the output parsed by the evaluator's own parser. */
export function storedSample(
  evaluator: { parseOutput(text: string): unknown },
  row: { unitId: string; status: "succeeded" | "failed"; output: string | null; error: string | null },
): StoredSample {
  return {
    unitId: row.unitId,
    status: row.status,
    output: row.output === null ? null : evaluator.parseOutput(row.output),
    error: row.error,
  };
}
