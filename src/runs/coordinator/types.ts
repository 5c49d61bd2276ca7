// The shapes the coordinator shares with its callers (the run's creation, the lanes) and among its
// own modules. Types only, so any module may import them without pulling in another's code.
import type { EndpointObservation } from "../limiter/endpoint-gate.ts";
import type { ModelCalls } from "../lanes/model-calls.ts";
import type { UnitMessage } from "../lanes/messages.ts";

export type StartRun = {
  runId: string;
  tenantId: string;
  evaluator: string;
  config: unknown;
  unitIds: string[];
  concurrency: number;
  /** The request left `concurrency` to the endpoint: the run adapts, `concurrency` being LIMITS.concurrency. */
  adaptive?: boolean;
  /** How long a dispatched unit may stay silent before it is dispatched again. */
  leaseMs: number;
  maxAttempts?: number;
  /** The provider API key, encrypted with SECRETS_KEY; deleted when the run ends. */
  secretEnc: string | null;
};

/** What a run is, fixed by its start. */
export type RunSettings = {
  runId: string;
  tenantId: string;
  evaluator: string;
  concurrency: number;
  leaseMs: number;
  maxAttempts: number;
  total: number;
};

/** The counts of ended units and their model calls (a finished run's include its aggregate's calls). */
export type Progress = { done: number; failed: number; calls: ModelCalls };

/**
 * `config`: the run's, or only what the unit needs where its evaluator says (EvaluatorPlugin.unitConfig);
 * `checkpoint`: where the unit stopped if an earlier invocation handed over mid-unit (see checkpoints.ts);
 * `concurrency`: the run's, when its request gave one (null: the run adapts), which opens a fresh
 * endpoint window (EndpointLimiter.acquire).
 */
export type UnitContextReply = {
  tenantId: string;
  evaluator: string;
  config: unknown;
  secretEnc: string | null;
  checkpoint: string | null;
  concurrency: number | null;
};

/**
 * The next unit a lane is handed in the reply to its report. `config`: what that unit needs, where its
 * evaluator hands lanes a config per unit (EvaluatorPlugin.unitConfig); otherwise absent, and the lane's
 * context serves.
 */
export type NextUnit = UnitMessage & { config?: unknown };

/**
 * A unit's sample as its lane reports it: the output already JSON text, so exact number lexemes
 * survive the RPC, and the model calls of this attempt (the lane counts them; see model-calls.ts).
 */
export type UnitSample = {
  status: "succeeded" | "failed";
  output: string | null;
  error: string | null;
  calls?: ModelCalls;
  /** What the lane saw of its endpoint's shared window during the unit (absent: no limited endpoint was called). */
  endpoint?: EndpointObservation;
};
