/**
 * chain-determinism on the run platform: one unit per (query, replay) through the engine's agent loop;
 * aggregation is the original's `chain_divergence_rate` plus what it lacks (modal share and first
 * divergent step per query, fingerprints, providers and token totals).
 */
import { parseLossless } from "../../engines/python/index.ts";
import type { EvaluatorPlugin } from "../../runs/plugin/plugin.ts";
import { aggregate, wireResult } from "./aggregate.ts";
import { chainDeterminismComparer } from "./compare.ts";
import { createChainDeterminismRun } from "./create.ts";
import { ChainDeterminismRunRequest, type ChainDeterminismBody } from "./request.ts";
import { chainDeterminismRoutes } from "./routes.ts";
import { ChainDeterminismPublicConfig, ChainDeterminismOutput, ChainDeterminismResult, NAME } from "./schemas.ts";
import { execute, failureRow, plan, turnCost, type ChainDeterminismRunConfig, type Output } from "./units.ts";

export { DEFAULT_SUITE, loadSuite } from "./suites.ts";
export type { ChainDeterminismRunConfig, ReplayRow } from "./units.ts";
export type { ChainDeterminismResult } from "./schemas.ts";

export const chainDeterminism = {
  name: NAME,
  schemas: {
    request: ChainDeterminismRunRequest,
    config: ChainDeterminismPublicConfig,
    result: ChainDeterminismResult,
    output: ChainDeterminismOutput,
  },
  route: {
    operationId: "createChainDeterminismRun",
    summary: "Replay tool-calling queries N times and measure whether tool-call sequences diverge",
    description:
      "Returns at once (202) with the run; follow `links.events` (SSE) or poll `links.self`. Accepts `Idempotency-Key`: the same key and body return the same run.",
  },
  // /v1/chain-determinism/suites.
  routes: { evaluator: chainDeterminismRoutes },

  create: createChainDeterminismRun,

  plan,
  // Every step is one turn, so the largest is any turn.
  unitCost: (config) => turnCost(config),
  execute,
  aggregate,
  wireResult,

  // Lossless: a stored `1.0` must stay a float, or the sequence keys (and so divergence) change.
  parseOutput: (text) => parseLossless(text),

  failureOutput(config, id, error): Output {
    return { row: failureRow(config, id, error), turns: [] };
  },

  exportLine(sample) {
    return (sample.output as Output | null)?.row ?? null;
  },

  comparer: chainDeterminismComparer,
} satisfies EvaluatorPlugin<ChainDeterminismBody, ChainDeterminismRunConfig, ChainDeterminismResult>;
