/**
 * From stored samples to the run's aggregates (spec rpl.md §6, §8–§11): keep the valid samples, group
 * their logits by template in first-seen order, pick the bootstrap seed, run the frozen estimator, and add
 * stability, rates and PQS. This is the function the coordinator calls once all samples are in.
 */
import { aggregateClustered, type Aggregation } from "./aggregate.ts";
import { pqsV1, stability, type Pqs, type StabilityBand } from "./quality.ts";
import { makeBootstrapSeed, parseSeed } from "./seed.ts";
import { logit } from "./transforms.ts";

/** The fewest valid samples a run may aggregate (§6). */
export const MIN_VALID_SAMPLES = 3;

export type RplSample = {
  /** Template key: the prompt_sha256 the row stores. */
  prompt_sha256: string;
  /** Compliant flag (json_valid in the original): only these rows are aggregated. */
  valid: boolean;
  prob: number | null;
  /** Stored logit; when null/absent the clipped logit of `prob` is used (§7). */
  logit?: number | null;
};

export type RunSummary = Aggregation & {
  /** Decimal string of the seed actually used. */
  bootstrap_seed: string;
  stability_score: number;
  stability_band: StabilityBand;
  /** Same value as diagnostics.template_iqr_logit. */
  stability_iqr_logit: number;
  valid_count: number;
  attempted: number;
  rpl_compliance_rate: number;
  cache_hit_rate: number;
} & Pqs;

/**
 * Aggregate one run.
 * Seed precedence (§8): `seed` (config) → `envSeed` (the deployment's fixed seed, passed in explicitly) →
 * derived from (claim, model, prompt version, K, R, unique valid template hashes, "trimmed", 0.2, B).
 * `attempted` defaults to samples.length (every (slot, r) produces one row, valid or not).
 * @throws RangeError when fewer than 3 samples are valid, or when a seed is malformed.
 */
export async function aggregateSamples(input: {
  samples: readonly RplSample[];
  claim: string;
  model: string;
  promptVersionFull: string;
  K: number;
  R: number;
  B?: number;
  seed?: bigint | number | string | null;
  envSeed?: bigint | number | string | null;
  attempted?: number;
  cacheHits?: number;
}): Promise<RunSummary> {
  const { samples, claim, model, promptVersionFull, K, R, B = 5000, cacheHits = 0 } = input;
  const attempted = input.attempted ?? samples.length;
  const byTemplate = new Map<string, number[]>();
  let validCount = 0;
  for (const s of samples) {
    if (!s.valid) continue;
    const l = s.logit ?? (s.prob === null ? null : logit(s.prob));
    if (l === null || Number.isNaN(l)) continue;
    validCount++;
    const group = byTemplate.get(s.prompt_sha256);
    if (group) group.push(l);
    else byTemplate.set(s.prompt_sha256, [l]);
  }
  if (validCount < MIN_VALID_SAMPLES) {
    throw new RangeError(
      `aggregateSamples: need at least ${MIN_VALID_SAMPLES} valid samples to aggregate, got ${validCount} of ${attempted} attempted`,
    );
  }
  const seed =
    input.seed != null
      ? parseSeed(input.seed)
      : input.envSeed != null
        ? parseSeed(input.envSeed)
        : await makeBootstrapSeed({
            claim,
            model,
            promptVersionFull,
            K,
            R,
            templateHashes: [...byTemplate.keys()],
            center: "trimmed",
            trim: 0.2,
            B,
          });
  const agg = aggregateClustered(byTemplate, { seed, B, center: "trimmed", trim: 0.2 });
  const stab = stability(agg.template_means);
  const compliance = attempted > 0 ? validCount / attempted : 0;
  return {
    ...agg,
    bootstrap_seed: seed.toString(),
    stability_score: stab.score,
    stability_band: stab.band,
    stability_iqr_logit: stab.iqr,
    valid_count: validCount,
    attempted,
    rpl_compliance_rate: compliance,
    cache_hit_rate: attempted > 0 ? cacheHits / attempted : 0,
    ...pqsV1(stab.score, agg.ci_width, compliance),
  };
}
