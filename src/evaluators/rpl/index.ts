/**
 * RPL (Raw Prior Lens, spec rpl.md) on the run platform: one unit per (slot, replicate) of the
 * deterministic sampling plan, each one model call (or a sample-cache hit); aggregation is the engine's
 * frozen estimator over every sample. A list of prompt versions makes one run per version (an A/B
 * group); `preset: "auto"` makes a run per stage, each following the last (auto.ts).
 *
 * Decisions:
 * - The plan (rotation, template selection, balanced slots, each slot's prompt_sha256 and replicate
 *   indices) needs hashing, which is async, so `create` computes it once with `planRpl` and stores it in
 *   the config; `plan(config)` only lists `s{slot}.r{r}` ids, slot-major as the original's loop.
 * - Cache key (§5): the 7-field form, provider mode "MOCK" for `sim:*` models and "LIVE" for endpoints, so
 *   simulated samples never answer for a real model. The model string is the configured one (sim knobs
 *   included). As in the original, the run's seed is not in the key.
 * - Samples store the engine's (schema-based) prompt_sha256 also for sim models: the original's mock
 *   stored a "MOCK"-schema hash (§4, §18.4); our simulator is our own, so we do not reproduce that.
 * - A cache hit reuses the stored sample as is (json_valid, prob, logit, raw answer); only the run-local
 *   fields (slot, r) and `cache_hit: true` are set. Only samples with a model reply are cached; a failed
 *   call (ProviderError after the provider's retries) becomes an invalid, uncached sample.
 * - Answers are strict JSON (engine `parseAnswer`): prob_true a number in [0, 1], no URL anywhere.
 *   Invalid answers are kept (json_valid false, with the reason). A URL-flagged answer keeps its number
 *   (prob_true/logit), like the original row; it is never aggregated.
 */
import type { EvaluatorPlugin } from "../../runs/plugin/plugin.ts";
import { aggregate } from "./aggregate.ts";
import { autoFollowUp } from "./auto.ts";
import { rplComparer } from "./compare.ts";
import { createRplRun, type RplStoredConfig } from "./create.ts";
import { RplRunRequest, type RplBody } from "./request.ts";
import { rplRoutes } from "./routes.ts";
import { NAME, RplPublicConfig, RplOutput, RplResult } from "./schemas.ts";
import { execute, invalidRow, plan, unitCost } from "./units.ts";

export { planRpl, providerModeOf, type RplRunConfig, type RplPlan, type RplPlanSlot } from "./plan.ts";
export { rplUnitId, type RplInvalidReason } from "./units.ts";
export type { RplOutput, RplResult } from "./schemas.ts";

export const rpl = {
  name: NAME,
  schemas: { request: RplRunRequest, config: RplPublicConfig, result: RplResult, output: RplOutput },
  route: {
    operationId: "createRplRun",
    summary: "Estimate a model's prior that a claim is true, over K paraphrases × R replicates",
    description:
      "Returns at once (202) with the run, or with one run per version when `prompt_version` is a list. Samples are cached per tenant by the original's cache key, so a rerun of the same claim, model, prompt version and replicates makes no model calls. Accepts `Idempotency-Key`.",
    groups: true,
  },
  // GET /v1/rpl/compare.
  routes: { evaluator: rplRoutes },

  create: createRplRun,

  // The auto preset's stages (auto.ts); a plain run has no follow-up.
  followUp: (config, result) => autoFollowUp(config, result),

  plan,
  unitCost: (config) => unitCost(config),
  execute,
  aggregate,

  parseOutput: (text) => JSON.parse(text),

  failureOutput(config, id, error): RplOutput {
    return invalidRow(config, id, "unit_failed", error, null);
  },

  exportLine(sample) {
    return sample.output;
  },

  // GET /v1/compare: the engine's parity and winner rule, as GET /v1/rpl/compare (compare.ts).
  comparer: rplComparer,
} satisfies EvaluatorPlugin<RplBody, RplStoredConfig, RplResult>;
