import { aggregateSamples, runId } from "../../engines/rpl/index.ts";
import type { StoredSample } from "../types.ts";
import type { RplConfig } from "./plan.ts";
import type { RplResult } from "./schemas.ts";
import { plan, rowOf } from "./units.ts";

function tally(into: Record<string, number>, key: string | null) {
  if (key) into[key] = (into[key] ?? 0) + 1;
}

/**
 * The engine's frozen estimator over every sample, with the run's plan and diagnostics. Async (WebCrypto
 * for the seed and run id). The samples are sorted into plan order first, because the estimator's
 * bootstrap depends on first-seen template order and samples are stored in completion order.
 */
export async function aggregate(config: RplConfig, samples: StoredSample[]): Promise<RplResult> {
  // Plan order, not completion order: the estimator's bootstrap depends on first-seen template order.
  const order = new Map(plan(config).map((id, i) => [id, i]));
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
}
