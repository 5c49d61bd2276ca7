import { ApiError, type FieldError } from "../../errors.ts";
import { singleCallLeaseMs } from "../../runs/plugin/lease.ts";
import { modelConfig } from "../../runs/plugin/model-fields.ts";
import type { CreateContext, Creation, NewRunOf } from "../../runs/plugin/plugin.ts";
import { requireStepsFit } from "../../runs/plugin/step-limits.ts";
import { autoStart, publicRplConfig, type AutoState } from "./auto.ts";
import { planRpl, type RplRunConfig } from "./plan.ts";
import { resolveRplPrompt, type ResolvedRplPrompt } from "./prompt-ref.ts";
import type { RplBody } from "./request.ts";
import { unitCost } from "./units.ts";

/**
 * Like the original, a run whose longest composed prompt is longer than this is refused (spec §1).
 * The original's 1,500 fits its shorter bank; ours is about 1,700 characters before the claim, so the
 * cap is set for ours, and in practice it bounds the claim, which appears twice in every prompt.
 */
const MAX_PROMPT_CHARS = 4000;

/** The stored config: the plan's, the auto preset's state, and public fields that ride along as plain data. */
export type RplStoredConfig = RplRunConfig & {
  auto?: AutoState;
  prompt_version_full?: string;
  prompt_sha256?: string;
  concurrency?: number;
};

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
    else
      errors.push({
        path: Array.isArray(body.prompt_version) ? `prompt_version.${i}` : "prompt_version",
        message: found,
      });
  }
  if (errors.length) throw ApiError.validation(errors);
  if (new Set(versions).size !== versions.length)
    throw ApiError.validation([{ path: "prompt_version", message: "lists a version twice" }]);
  return banks;
}

/** A request as its run, or as a group of runs (one per prompt version) when it lists several. */
export async function createRplRun(body: RplBody, ctx: CreateContext): Promise<Creation<RplStoredConfig>> {
  const model = await modelConfig({ ...body, seed: undefined }, { latency_ms: 0 }, ctx);
  requireStepsFit([{ path: "timeout_s", what: "A sample's call and its retries", cost: unitCost(model.config) }]);
  const banks = await banksOf(body, ctx);
  // Every version is planned (and its prompts checked) before any run is made.
  const parts = [];
  for (const { ref: version, bank, sha256 } of banks) {
    const stageStart =
      body.preset === "auto" ? autoStart(bank.paraphrases.length) : { K: body.K, R: body.R, T: body.T };
    const planned = await planRpl({
      claim: body.claim,
      model: body.model,
      promptBank: bank,
      K: stageStart.K,
      R: stageStart.R,
      T: stageStart.T,
    });
    if (planned.prompt_char_len_max > MAX_PROMPT_CHARS) {
      throw ApiError.validation([
        {
          path: "claim",
          message: `too long: the longest prompt would be ${planned.prompt_char_len_max} characters; the cap is ${MAX_PROMPT_CHARS}`,
        },
      ]);
    }
    // Extra public fields (prompt_version_full, concurrency) ride along in the config; they are plain data.
    const config: RplStoredConfig = {
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
    const run = (groupId: string | null): NewRunOf<RplStoredConfig> => ({
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
}
