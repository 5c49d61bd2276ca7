import { aggregateSamples, runId } from "../../engines/rpl/index.ts";
import type { StoredSample } from "../../runs/plugin/types.ts";
import type { RplRunConfig } from "./plan.ts";
import type { RplOutput, RplResult } from "./schemas.ts";
import { plan, rowOf } from "./units.ts";

function tally(into: Record<string, number>, key: string | null) {
  if (key) into[key] = (into[key] ?? 0) + 1;
}

/** Of a sample's row, what the estimator and the diagnostics read (not its answer object or reply text). */
type Kept = Pick<RplOutput, "prompt_sha256" | "json_valid" | "prob_true" | "logit" | "cache_hit" | "invalid_reason"> & {
  at: number;
};

/**
 * The engine's frozen estimator over every sample, with the run's plan and diagnostics. Async (WebCrypto
 * for the seed and run id). The samples are sorted into plan order first, because the estimator's
 * bootstrap depends on first-seen template order and samples are stored in completion order. One pass
 * keeps a few fields of each sample, and of the errors only the first in plan order.
 */
export async function aggregate(config: RplRunConfig, samples: Iterable<StoredSample>): Promise<RplResult> {
  // Plan order, not completion order: the estimator's bootstrap depends on first-seen template order.
  const order = new Map(plan(config).map((id, i) => [id, i]));
  const kept: Kept[] = [];
  let firstError: { at: number; error: string } | null = null;
  for (const s of samples) {
    const r = rowOf(config, s);
    const at = order.get(s.unitId) ?? Number.MAX_SAFE_INTEGER;
    kept.push({
      at,
      prompt_sha256: r.prompt_sha256,
      json_valid: r.json_valid,
      prob_true: r.prob_true,
      logit: r.logit,
      cache_hit: r.cache_hit,
      invalid_reason: r.invalid_reason,
    });
    // The first by plan order, ties (ids outside the plan) to the first recorded, as a stable sort would have it.
    if (r.error && (!firstError || at < firstError.at)) firstError = { at, error: r.error };
  }
  // Array.prototype.sort is stable: equal positions keep their recorded order, as before.
  const rows = kept.sort((a, b) => a.at - b.at);
  const cacheHits = rows.filter((r) => r.cache_hit).length;
  const invalid_reasons: Record<string, number> = {};
  for (const r of rows) tally(invalid_reasons, r.invalid_reason);
  let summary;
  try {
    summary = await aggregateSamples({
      samples: rows.map((r) => ({
        prompt_sha256: r.prompt_sha256,
        valid: r.json_valid,
        prob: r.prob_true,
        logit: r.logit,
      })),
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
    const first = firstError?.error;
    const reasons = Object.entries(invalid_reasons)
      .map(([k, n]) => `${k} ×${n}`)
      .join(", ");
    throw new RangeError(
      `${err.message}${reasons ? ` (invalid: ${reasons})` : ""}${first ? `; first error: ${first}` : ""}`,
    );
  }
  const d = summary.diagnostics;
  return {
    run_id: await runId({
      claim: config.claim,
      model: config.model,
      promptVersionFull: config.prompt.version,
      K: config.K,
      R: config.R,
    }),
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
}
