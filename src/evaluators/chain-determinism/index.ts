/**
 * chain-determinism on the run platform: one unit per (query, replay) through the engine's agent loop;
 * aggregation is the original's `chain_divergence_rate` plus what it lacks (modal share and first
 * divergent step per query, fingerprints, providers and token totals).
 */
import { parseLossless } from "../../engines/python/index.ts";
import { SIM_DIVERGENCE } from "../../providers/index.ts";
import { ApiError } from "../../errors.ts";
import { modelConfig } from "../../runs/plugin/model-fields.ts";
import type { EvaluatorPlugin } from "../../runs/plugin/plugin.ts";
import { aggregate, wireResult } from "./aggregate.ts";
import { chainDeterminismComparer } from "./compare.ts";
import { ChainDeterminismRunRequest, type ChainDeterminismBody } from "./request.ts";
import { chainDeterminismRoutes } from "./routes.ts";
import { ChainDeterminismConfig as ConfigSchema, ChainDeterminismOutput, ChainDeterminismResult } from "./schemas.ts";
import { loadSuite } from "./suites.ts";
import { execute, failureRow, plan, turnCost, type ChainDeterminismConfig, type Output } from "./units.ts";
import { requireStepsFit } from "../../runs/plugin/step-limits.ts";

export { DEFAULT_SUITE, loadSuite } from "./suites.ts";
export type { ChainDeterminismConfig, ReplayRow } from "./units.ts";
export type { ChainDeterminismResult } from "./schemas.ts";

export const chainDeterminism = {
  name: "chain-determinism" as const,
  schemas: { request: ChainDeterminismRunRequest, config: ConfigSchema, result: ChainDeterminismResult, output: ChainDeterminismOutput },
  route: {
    operationId: "createChainDeterminismRun",
    summary: "Replay tool-calling queries N times and measure whether tool-call sequences diverge",
    description:
      "Returns at once (202) with the run; follow `links.events` (SSE) or poll `links.self`. Accepts `Idempotency-Key`: the same key and body return the same run.",
  },
  // /v1/chain-determinism/suites.
  routes: { evaluator: chainDeterminismRoutes },

  async create(body, ctx) {
    const { db, tenantId } = ctx;
    const model = await modelConfig(body, { divergence: SIM_DIVERGENCE, latency_ms: 0 }, ctx);
    const suite = await loadSuite(db, tenantId, body.suite);
    if (!suite) throw ApiError.validation([{ path: "suite", message: `No suite '${body.suite}' for this tenant.` }]);
    if (body.n_queries > suite.suite.queries.length) {
      throw ApiError.validation([{ path: "n_queries", message: `The suite has ${suite.suite.queries.length} queries.` }]);
    }
    // A replay hands over to a fresh invocation between turns, never inside one (its call's attempts).
    const turn = turnCost(model.config);
    requireStepsFit([{ path: "timeout_s", what: "A replay's turn (one call and its retries)", cost: turn }]);
    const publicConfig = {
      ...model.config,
      suite: { id: suite.id, name: suite.name, sha256: suite.sha256 },
      n_queries: body.n_queries,
      n_replays: body.n_replays,
      temperature: body.temperature,
      concurrency: body.concurrency,
      max_turns: body.max_turns,
      max_tokens: body.max_tokens,
      min_success: body.min_success,
    };
    return {
      config: { ...publicConfig, suite_data: suite.suite },
      publicConfig,
      secrets: model.secrets,
      // A replay makes at most max_turns calls, each with its own retries: past this, it is presumed lost.
      leaseMs: body.max_turns * turn.ms + 60_000,
    };
  },

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
} satisfies EvaluatorPlugin<ChainDeterminismBody, ChainDeterminismConfig, ChainDeterminismResult>;
