/**
 * reasoning-quality on the run platform: every generation is a unit (model × item × call: the primary
 * run, runs 2..K, and one call per usable perturbation slot). The aggregate rebuilds each item's record
 * from its samples with the engine's failure policy and computes the six metrics, the per-dataset
 * breakdown and Q under every strategy, per model (src/engines/reasoning-quality).
 *
 * The calls of an item run in parallel, so when the primary fails its further runs may still have been
 * made; the record then ignores them, exactly as if they had been skipped (fixed denominators, spec §1.4).
 *
 * Model-backed LS and SS (backends.ts): the primary unit also asks the contradiction checker about its
 * own trace and records the labels; SS embeddings are fetched by the aggregate, which has every trace.
 */
import type { EvaluatorPlugin } from "../../runs/plugin/plugin.ts";
import { aggregateRq } from "./aggregate.ts";
import { rqComparer } from "./compare.ts";
import { createRqRun } from "./create.ts";
import { ReasoningQualityRunRequest, type RqBody } from "./request.ts";
import { datasetRoutes } from "./routes/datasets.ts";
import { reportRoutes } from "./routes/reports.ts";
import { NAME, RqOutput, RqPublicConfig, RqResult } from "./schemas.ts";
import { execute, failureOutput, plan, unitConfig, unitCost, type RqRunConfig } from "./units.ts";

export { aggregateRq } from "./aggregate.ts";
export { modelSecret, type RqRunConfig, type RqModel } from "./units.ts";
export type { RqModelResult, RqOutput, RqResult } from "./schemas.ts";

export const reasoningQuality = {
  name: NAME,
  schemas: { request: ReasoningQualityRunRequest, config: RqPublicConfig, result: RqResult, output: RqOutput },
  route: {
    operationId: "createReasoningQualityRun",
    summary: "Score models' reasoning on a dataset: CQ, CS, RS, LS, ES, SS and Q under every strategy",
    description:
      "Each generation is a unit of the run: per model and item the primary run, K − 1 further runs and one call per usable perturbation (K + P calls). The result holds per model the six raw metrics (4 decimals), the per-dataset breakdown, Q under every strategy (the preset's and yours), rankings per strategy, call, token and failure counts, and which LS / SS method produced the figures. Reports: GET /v1/runs/{id}/report.csv, report.xlsx, radar.svg. Accepts `Idempotency-Key`.",
  },
  // /v1/reasoning-quality/datasets; /v1/runs/{run_id}/report.csv, report.xlsx, radar.svg.
  routes: { evaluator: datasetRoutes, runs: reportRoutes },
  create: createRqRun,
  plan,
  // Lanes get a unit's item, not the run's thousands (units.ts).
  unitConfig,
  unitCost,
  execute,
  aggregate: (config, samples, ctx) => aggregateRq(config, samples, ctx),
  parseOutput: (text) => JSON.parse(text),
  failureOutput,
  exportLine: (sample) => sample.output,
  // GET /v1/compare: per model and metric, paired by item (compare.ts).
  comparer: rqComparer,
} satisfies EvaluatorPlugin<RqBody, RqRunConfig, RqResult>;
