/**
 * RPL (Raw Prior Lens, spec rpl.md) on the run platform: one unit per (slot, replicate) of the
 * deterministic sampling plan, each one model call (or a sample-cache hit); aggregation is the engine's
 * frozen estimator over every sample.
 *
 * Decisions:
 * - The plan (rotation, template selection, balanced slots, each slot's prompt_sha256 and replicate
 *   indices) needs hashing, which is async, so the route computes it once with `planRpl` and stores it in
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
 * - `aggregate` is async (WebCrypto for the seed and run id): the platform must await it. It sorts the
 *   samples into plan order first, because the estimator's bootstrap depends on first-seen template
 *   order and samples are stored in completion order.
 */
import {
  aggregateSamples,
  composePrompt,
  logit,
  parseAnswer,
  planSampling,
  replicateIndices,
  runId,
  sampleCacheKey,
  type InvalidReason,
  type ProviderMode,
} from "../engines/rpl/index.ts";
import { isSimModel, ProviderError, type ChatResponse, type ModelSettings } from "../providers/index.ts";
import type { RplPromptBank } from "./rpl-prompts.ts";
import { autoFollowUp } from "./rpl-auto.ts";
import type { Evaluator, StoredSample, UnitOutcome } from "./types.ts";

/** One slot of the plan: its bank template, that template's prompt hash and the replicate index of each r. */
export type RplPlanSlot = { template_index: number; prompt_sha256: string; replicate_idx: number[] };

/** The precomputed sampling plan (§3–§5), as `describe` reports it plus the per-slot data units need. */
export type RplPlan = {
  T_bank: number;
  rotation_offset: number;
  T_stage: number;
  /** Bank indices of the selected templates, after rotation. */
  tpl_indices: number[];
  /** Local template index per slot. */
  seq: number[];
  planned_counts: number[];
  planned_imbalance_ratio: number;
  /** Longest composed prompt in code points (for the route's max_prompt_chars cap). */
  prompt_char_len_max: number;
  slots: RplPlanSlot[];
};

export type RplConfig = ModelSettings & {
  claim: string;
  /** Short bank name (the API's prompt_version), e.g. "rpl-assay-v1". */
  prompt_version: string;
  /** Snapshot of the bank; `prompt.version` (the full version string) is what hashes use. */
  prompt: RplPromptBank;
  K: number;
  R: number;
  T: number | null;
  B: number;
  /** Explicit bootstrap seed, unsigned 64-bit as a decimal string; null = derived. */
  bootstrap_seed: string | null;
  max_output_tokens: number;
  no_cache: boolean;
  plan: RplPlan;
};

/** Why a sample is invalid: the engine's compliance reasons, a failed model call, or a unit that gave up. */
export type RplInvalidReason = InvalidReason | "provider_error" | "unit_failed";

/** One sample (the unit's stored output and NDJSON export line); mirrors the original's samples row. */
export type RplSampleRow = {
  slot: number;
  r: number;
  cache_key: string | null;
  prompt_sha256: string;
  /** Bank index of the paraphrase. */
  paraphrase_idx: number;
  replicate_idx: number;
  prob_true: number | null;
  logit: number | null;
  /** Compliant (valid number in [0, 1], no URL): only these are aggregated. */
  json_valid: boolean;
  invalid_reason: RplInvalidReason | null;
  /** `${name}: ${message}` of a failed call or unit; null otherwise. */
  error: string | null;
  /** The parsed answer object (null when the reply was not JSON or there was no reply). */
  raw: unknown;
  /** The reply text, only when it did not parse as JSON (first 2000 characters). */
  response_text?: string;
  provider_model_id: string | null;
  response_id: string | null;
  tokens_out: number | null;
  latency_ms: number | null;
  cache_hit: boolean;
};

const RESPONSE_TEXT_MAX = 2000;

export const rplUnitId = (slot: number, r: number) => `s${slot}.r${r}`;

function parseUnit(id: string): { slot: number; r: number } {
  const m = /^s(\d+)\.r(\d+)$/.exec(id);
  if (!m) throw new Error(`rpl: bad unit id '${id}'`);
  return { slot: Number(m[1]), r: Number(m[2]) };
}

function slotOf(config: RplConfig, id: string): { slot: number; r: number; plan: RplPlanSlot } {
  const { slot, r } = parseUnit(id);
  const plan = config.plan.slots[slot];
  if (!plan || r >= plan.replicate_idx.length) throw new Error(`rpl: unit '${id}' is not in the run's plan`);
  return { slot, r, plan };
}

function composeFor(config: Pick<RplConfig, "claim" | "prompt">, templateIndex: number) {
  return composePrompt({
    system: config.prompt.system,
    userTemplate: config.prompt.user_template,
    paraphrase: config.prompt.paraphrases[templateIndex],
    claim: config.claim,
    schema: config.prompt.schema,
  });
}

function checkCount(name: string, v: number | null | undefined, min: number) {
  if (v == null) return;
  if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`planRpl: ${name} must be an integer ≥ ${min}, got ${v}`);
}

/**
 * The run's sampling plan (§3–§5), computed once at creation: rotation offset from
 * sha256(claim|model|version), the T_stage selected templates, the balanced slot sequence, each slot's
 * prompt_sha256 and the replicate index of each of its R replicates (`occ·R + r`, occ counted per
 * prompt_sha256 as the original does).
 * @throws RangeError for K < 1, R < 1 or a negative / non-integer T.
 */
export async function planRpl(input: { claim: string; model: string; promptBank: RplPromptBank; K: number; R: number; T: number | null }): Promise<RplPlan> {
  const { claim, model, promptBank, K, R, T } = input;
  checkCount("K", K, 1);
  checkCount("R", R, 1);
  checkCount("T", T, 0);
  const sampling = await planSampling({ claim, model, promptVersionFull: promptBank.version, tBank: promptBank.paraphrases.length, T, K });
  const composed = new Map<number, Awaited<ReturnType<typeof composeFor>>>();
  for (const t of sampling.tpl_indices) composed.set(t, await composeFor({ claim, prompt: promptBank }, t));
  const keys = sampling.seq_bank.map((t) => composed.get(t)!.prompt_sha256);
  const slots: RplPlanSlot[] = sampling.seq_bank.map((t, slot) => ({ template_index: t, prompt_sha256: keys[slot], replicate_idx: [] }));
  for (const u of replicateIndices(keys, R)) slots[u.slot].replicate_idx.push(u.replicate_idx);
  return {
    T_bank: sampling.T_bank,
    rotation_offset: sampling.rotation_offset,
    T_stage: sampling.T_stage,
    tpl_indices: sampling.tpl_indices,
    seq: sampling.seq,
    planned_counts: sampling.planned_counts,
    planned_imbalance_ratio: sampling.planned_imbalance_ratio,
    prompt_char_len_max: Math.max(0, ...[...composed.values()].map((c) => c.prompt_char_len)),
    slots,
  };
}

/** "MOCK" for the simulator, "LIVE" for endpoints (the cache key's provider_mode). */
export function providerModeOf(model: string): ProviderMode {
  return isSimModel(model.split("?", 1)[0]) ? "MOCK" : "LIVE";
}

function isSampleRow(v: unknown): v is RplSampleRow {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return typeof o.prompt_sha256 === "string" && typeof o.json_valid === "boolean" && typeof o.replicate_idx === "number";
}

function outcomeOf(row: RplSampleRow): UnitOutcome {
  if (row.json_valid) return { status: "succeeded", output: row };
  return { status: "failed", output: row, error: row.error ?? `invalid answer: ${row.invalid_reason ?? "unknown"}` };
}

function invalidRow(config: RplConfig, id: string, reason: RplInvalidReason, error: string, cacheKey: string | null): RplSampleRow {
  const { slot, r, plan } = slotOf(config, id);
  return {
    slot,
    r,
    cache_key: cacheKey,
    prompt_sha256: plan.prompt_sha256,
    paraphrase_idx: plan.template_index,
    replicate_idx: plan.replicate_idx[r],
    prob_true: null,
    logit: null,
    json_valid: false,
    invalid_reason: reason,
    error,
    raw: null,
    provider_model_id: null,
    response_id: null,
    tokens_out: null,
    latency_ms: null,
    cache_hit: false,
  };
}

function tally(into: Record<string, number>, key: string | null) {
  if (key) into[key] = (into[key] ?? 0) + 1;
}

export const rpl: Evaluator<RplConfig> = {
  name: "rpl",

  // The auto preset's stages (rpl-auto.ts); a plain run has no follow-up.
  followUp: (config, result) => autoFollowUp(config, result),

  plan(config) {
    const ids: string[] = [];
    config.plan.slots.forEach((s, slot) => s.replicate_idx.forEach((_, r) => ids.push(rplUnitId(slot, r))));
    return ids;
  },

  async execute(id, ctx, signal): Promise<UnitOutcome> {
    const config = ctx.config;
    const { slot, r, plan } = slotOf(config, id);
    const prompt = await composeFor(config, plan.template_index);
    if (prompt.prompt_sha256 !== plan.prompt_sha256) throw new Error(`rpl: unit '${id}': the prompt does not match the run's plan`);
    const replicate_idx = plan.replicate_idx[r];
    const cache_key = await sampleCacheKey({
      claim: config.claim,
      model: config.model,
      promptVersionFull: config.prompt.version,
      promptSha256: plan.prompt_sha256,
      replicateIdx: replicate_idx,
      maxOutputTokens: config.max_output_tokens,
      providerMode: providerModeOf(config.model),
    });

    if (!config.no_cache) {
      const hit = await ctx.cache.get(cache_key);
      if (isSampleRow(hit)) return outcomeOf({ ...hit, slot, r, cache_hit: true });
    }

    const started = Date.now();
    let res: ChatResponse;
    try {
      res = await ctx.chat(replicate_idx).chat(
        {
          model: config.model,
          messages: [
            { role: "system", content: prompt.instructions },
            { role: "user", content: prompt.user_text },
          ],
          max_tokens: config.max_output_tokens,
        },
        { signal },
      );
    } catch (err) {
      // A canceled run's unit is discarded by the runner anyway; anything that is not a model-call
      // failure is a bug or an infrastructure fault: throw, so the platform retries the unit.
      if (signal.aborted || !(err instanceof ProviderError)) throw err;
      return outcomeOf(invalidRow(config, id, "provider_error", `${err.name}: ${err.message}`, cache_key));
    }
    const latency_ms = Date.now() - started;
    const text = res.choices?.[0]?.message?.content ?? "";
    const answer = parseAnswer(text);
    const row: RplSampleRow = {
      slot,
      r,
      cache_key,
      prompt_sha256: plan.prompt_sha256,
      paraphrase_idx: plan.template_index,
      replicate_idx,
      prob_true: answer.prob,
      logit: answer.prob === null ? null : logit(answer.prob),
      json_valid: answer.valid,
      invalid_reason: answer.reason,
      error: null,
      raw: answer.raw,
      ...(answer.reason === "unparsable" ? { response_text: text.slice(0, RESPONSE_TEXT_MAX) } : {}),
      provider_model_id: res.model ?? null,
      response_id: res.id ?? null,
      tokens_out: res.usage?.completion_tokens ?? null,
      latency_ms,
      cache_hit: false,
    };
    if (!config.no_cache) await ctx.cache.put(cache_key, row);
    return outcomeOf(row);
  },

  async aggregate(config, samples) {
    // Plan order, not completion order: the estimator's bootstrap depends on first-seen template order.
    const order = new Map(rpl.plan(config).map((id, i) => [id, i]));
    const rows = samples
      .map((s) => ({ at: order.get(s.unitId) ?? Number.MAX_SAFE_INTEGER, row: rowOf(config, s) }))
      .sort((a, b) => a.at - b.at)
      .map((x) => x.row);
    const cacheHits = rows.filter((r) => r.cache_hit).length;
    const invalid_reasons: Record<string, number> = {};
    for (const r of rows) tally(invalid_reasons, r.invalid_reason);
    let summary;
    try {
      summary = await aggregateSamples({
        samples: rows.map((r) => ({ prompt_sha256: r.prompt_sha256, valid: r.json_valid, prob: r.prob_true, logit: r.logit })),
        claim: config.claim,
        model: config.model,
        promptVersionFull: config.prompt.version,
        K: config.K,
        R: config.R,
        B: config.B,
        seed: config.bootstrap_seed,
        attempted: rows.length,
        cacheHits,
      });
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      const first = rows.find((r) => r.error)?.error;
      const reasons = Object.entries(invalid_reasons).map(([k, n]) => `${k} ×${n}`).join(", ");
      throw new RangeError(`${err.message}${reasons ? ` (invalid: ${reasons})` : ""}${first ? `; first error: ${first}` : ""}`);
    }
    const d = summary.diagnostics;
    return {
      run_id: await runId({ claim: config.claim, model: config.model, promptVersionFull: config.prompt.version, K: config.K, R: config.R }),
      claim: config.claim,
      model: config.model,
      prompt_version: config.prompt.version,
      prompt_version_name: config.prompt_version,
      sampling: { K: config.K, R: config.R, T: config.T },
      aggregation: {
        method: d.method,
        B: d.B,
        center: d.center,
        trim: d.trim,
        bootstrap_seed: summary.bootstrap_seed,
        n_templates: d.n_templates,
        counts_by_template: d.counts_by_template,
        imbalance_ratio: d.imbalance_ratio,
        template_iqr_logit: d.template_iqr_logit,
        prompt_char_len_max: config.plan.prompt_char_len_max,
      },
      aggregates: {
        prob_true_rpl: summary.prob_true_rpl,
        ci95: summary.ci95,
        ci_width: summary.ci_width,
        stability_score: summary.stability_score,
        stability_band: summary.stability_band,
        is_stable: summary.is_stable,
        rpl_compliance_rate: summary.rpl_compliance_rate,
        cache_hit_rate: summary.cache_hit_rate,
      },
      diagnostics: {
        ell_hat: summary.ell_hat,
        ci_logit: summary.ci_logit,
        ci_logit_raw: summary.ci_logit_raw,
        template_means: summary.template_means,
        stability_iqr_logit: summary.stability_iqr_logit,
        planned_units: order.size,
        attempted: summary.attempted,
        valid_count: summary.valid_count,
        cache_hits: cacheHits,
        invalid_reasons,
      },
      quality: {
        pqs: summary.pqs,
        pqs_version: summary.pqs_version,
        gate_compliance_ok: summary.gate_compliance_ok,
        gate_stability_ok: summary.gate_stability_ok,
        gate_precision_ok: summary.gate_precision_ok,
      },
      plan: {
        T_bank: config.plan.T_bank,
        rotation_offset: config.plan.rotation_offset,
        T_stage: config.plan.T_stage,
        tpl_indices: config.plan.tpl_indices,
        seq: config.plan.seq,
        planned_counts: config.plan.planned_counts,
        planned_imbalance_ratio: config.plan.planned_imbalance_ratio,
      },
    };
  },

  parseOutput: (text) => JSON.parse(text),

  failureOutput(config, id, error): RplSampleRow {
    return invalidRow(config, id, "unit_failed", error, null);
  },

  exportLine(sample) {
    return sample.output;
  },
};

/** A stored sample's row; a sample without output (should not happen) counts as a failed unit. */
function rowOf(config: RplConfig, s: StoredSample): RplSampleRow {
  return isSampleRow(s.output) ? s.output : invalidRow(config, s.unitId, "unit_failed", s.error ?? "no output", null);
}
