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
import { ApiError, type FieldError } from "../../errors.ts";
import { singleCallLeaseMs } from "../../runs/plugin/lease.ts";
import { modelConfig } from "../../runs/plugin/model-fields.ts";
import type { CreateContext, EvaluatorPlugin, NewRunOf } from "../../runs/plugin/plugin.ts";
import { aggregate } from "./aggregate.ts";
import { autoFollowUp, autoStart, publicRplConfig, type AutoState } from "./auto.ts";
import { rplComparer } from "./compare.ts";
import { planRpl, type RplConfig } from "./plan.ts";
import { resolveRplPrompt, type ResolvedRplPrompt } from "./prompt-ref.ts";
import { RplRunRequest, type RplBody } from "./request.ts";
import { rplRoutes } from "./routes.ts";
import { RplConfig as ConfigSchema, RplOutput, RplResult } from "./schemas.ts";
import { execute, invalidRow, plan, unitCost, type RplSampleRow } from "./units.ts";
import { requireStepsFit } from "../../runs/plugin/step-limits.ts";

export { planRpl, providerModeOf, type RplConfig, type RplPlan, type RplPlanSlot } from "./plan.ts";
export { rplUnitId, type RplInvalidReason, type RplSampleRow } from "./units.ts";
export type { RplResult } from "./schemas.ts";

/**
 * Like the original, a run whose longest composed prompt is longer than this is refused (spec §1).
 * The original's 1,500 fits its shorter bank; ours is about 1,700 characters before the claim, so the
 * cap is set for ours, and in practice it bounds the claim, which appears twice in every prompt.
 */
const MAX_PROMPT_CHARS = 4000;

/** The stored config: the plan's, the auto preset's state, and public fields that ride along as plain data. */
type Config = RplConfig & { auto?: AutoState; prompt_version_full?: string; prompt_sha256?: string; concurrency?: number };

/**
 * The banks a request's prompt versions name (ours by short name, the tenant's as name@version), each
 * known and none twice; one 400 names every unknown one by its place.
 */
async function banksOf(body: RplBody, ctx: CreateContext): Promise<ResolvedRplPrompt[]> {
  const versions = Array.isArray(body.prompt_version) ? body.prompt_version : [body.prompt_version];
  const errors: FieldError[] = [];
  const banks: ResolvedRplPrompt[] = [];
  for (const [i, v] of versions.entries()) {
    const found = await resolveRplPrompt(ctx.db, ctx.tenantId, v);
    if (typeof found !== "string") banks.push(found);
    else errors.push({ path: Array.isArray(body.prompt_version) ? `prompt_version.${i}` : "prompt_version", message: found });
  }
  if (errors.length) throw ApiError.validation(errors);
  if (new Set(versions).size !== versions.length) throw ApiError.validation([{ path: "prompt_version", message: "lists a version twice" }]);
  return banks;
}

export const rpl = {
  name: "rpl" as const,
  schemas: { request: RplRunRequest, config: ConfigSchema, result: RplResult, output: RplOutput },
  route: {
    operationId: "createRplRun",
    summary: "Estimate a model's prior that a claim is true, over K paraphrases × R replicates",
    description:
      "Returns at once (202) with the run, or with one run per version when `prompt_version` is a list. Samples are cached per tenant by the original's cache key, so a rerun of the same claim, model, prompt version and replicates makes no model calls. Accepts `Idempotency-Key`.",
    groups: true,
  },
  // GET /v1/rpl/compare.
  routes: { evaluator: rplRoutes },

  async create(body, ctx) {
    const model = await modelConfig({ ...body, seed: undefined }, { latency_ms: 0 }, ctx);
    requireStepsFit([{ path: "timeout_s", what: "A sample's call and its retries", cost: unitCost(model.config) }]);
    const banks = await banksOf(body, ctx);
    // Every version is planned (and its prompts checked) before any run is made.
    const parts = [];
    for (const { ref: version, bank, sha256 } of banks) {
      const stageStart = body.preset === "auto" ? autoStart(bank.paraphrases.length) : { K: body.K, R: body.R, T: body.T };
      const planned = await planRpl({ claim: body.claim, model: body.model, promptBank: bank, K: stageStart.K, R: stageStart.R, T: stageStart.T });
      if (planned.prompt_char_len_max > MAX_PROMPT_CHARS) {
        throw ApiError.validation([
          { path: "claim", message: `too long: the longest prompt would be ${planned.prompt_char_len_max} characters; the cap is ${MAX_PROMPT_CHARS}` },
        ]);
      }
      // Extra public fields (prompt_version_full, concurrency) ride along in the config; they are plain data.
      const config: Config = {
        ...model.config,
        claim: body.claim,
        prompt_version: version,
        prompt_version_full: bank.version,
        prompt_sha256: sha256,
        B: body.B,
        bootstrap_seed: body.seed ?? null,
        max_output_tokens: body.max_output_tokens,
        no_cache: body.no_cache,
        concurrency: body.concurrency,
        ...stageStart,
        prompt: bank,
        plan: planned,
      };
      const run = (groupId: string | null): NewRunOf<Config> => ({
        config,
        publicConfig: { ...publicRplConfig(config), ...(groupId ? { group_id: groupId } : {}) },
        secrets: model.secrets,
        leaseMs: singleCallLeaseMs(model.config.timeout_s),
      });
      parts.push({ name: version, body: { ...body, prompt_version: version }, run });
    }
    // One version: one run. A list: a group whose runs share a group id, kept in each run's config.
    if (!Array.isArray(body.prompt_version)) return parts[0].run(null);
    return { group: parts };
  },

  // The auto preset's stages (auto.ts); a plain run has no follow-up.
  followUp: (config, result) => autoFollowUp(config, result),

  plan,
  unitCost: (config) => unitCost(config),
  execute,
  aggregate,

  parseOutput: (text) => JSON.parse(text),

  failureOutput(config, id, error): RplSampleRow {
    return invalidRow(config, id, "unit_failed", error, null);
  },

  exportLine(sample) {
    return sample.output;
  },

  // GET /v1/compare: the engine's parity and winner rule, as GET /v1/rpl/compare (compare.ts).
  comparer: rplComparer,
} satisfies EvaluatorPlugin<RplBody, Config, RplResult>;
