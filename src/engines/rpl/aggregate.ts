/**
 * The frozen RPL estimator (spec rpl.md §9): equal-by-template means in logit space, a 20% trimmed
 * center, and a clustered bootstrap on numpy's PCG64 stream, so that the same inputs and seed give the
 * same doubles as Heretix `aggregate_clustered`. Any change here needs a version bump (§17).
 */
import { clusterBootstrap, defaultRng, npMean, percentile, percentileSorted } from "../stats/index.ts";
import { center as centerOf, trimmedCenterInPlace, type Center } from "./center.ts";
import { parseSeed } from "./seed.ts";
import { sigmoid } from "./transforms.ts";

export type AggregateOptions = {
  /** Bootstrap seed, unsigned 64-bit (bigint, safe integer or decimal string). */
  seed: bigint | number | string;
  /** Bootstrap iterations; B = 1 gives a degenerate "CI" widened to contain the estimate (§18.10). */
  B?: number;
  center?: Center;
  trim?: number;
  /** Resample every template with this many draws (clipped to its size) instead of its own count. */
  fixedM?: number | null;
};

export type AggregateDiagnostics = {
  method: "equal_by_template_cluster_bootstrap_trimmed" | "equal_by_template_cluster_bootstrap";
  B: number;
  center: Center;
  trim: number;
  /** Decimal string: a 64-bit seed does not survive a JSON number. */
  bootstrap_seed: string;
  n_templates: number;
  counts_by_template: Record<string, number>;
  imbalance_ratio: number;
  /** IQR (75 − 25, linear) of the template mean logits; the same number as the stability IQR (§18.8). */
  template_iqr_logit: number;
};

export type Aggregation = {
  /** Center of the template means, in logit space. */
  ell_hat: number;
  /** 2.5/97.5 percentiles of the bootstrap distribution, widened to contain ell_hat. */
  ci_logit: [number, number];
  /** The same percentiles before that widening. */
  ci_logit_raw: [number, number];
  prob_true_rpl: number;
  ci95: [number, number];
  ci_width: number;
  /** ci_width <= 0.20. */
  is_stable: boolean;
  /** Per-template mean logits, in key order (the stability basis). */
  template_means: number[];
  /** The bootstrap distribution of centers, in replicate order. */
  dist: Float64Array;
  diagnostics: AggregateDiagnostics;
};

/**
 * `aggregate_clustered` (§9). `byTemplate` is the ordered map template key → logits; ORDER MATTERS, because
 * `choice` draws positions in key order: pass keys in the order they were first seen in the sample loop.
 * Steps: template means (numpy mean) → ell_hat = center(means); B replicates of (choose T templates with
 * replacement, resample min(size, len) members of each, center of those means); linear percentiles
 * 2.5/97.5, clamped so lo ≤ ell_hat ≤ hi; then sigmoid to probability space.
 * No minimum sample count here (one logit is a valid input); the ≥ 3 valid rule lives in {@link aggregateSamples}.
 * @throws RangeError when there are no templates, a template has no logits, a key repeats, trim ∉ [0, 0.5),
 *   B is not a positive integer (B = 0 would leave no distribution to take percentiles of), fixedM is not a positive
 *   integer, or the seed is not an integer in [0, 2^64).
 */
export function aggregateClustered(
  byTemplate: Iterable<readonly [string, ArrayLike<number>]>,
  opts: AggregateOptions,
): Aggregation {
  const { B = 5000, center = "trimmed", trim = 0.2, fixedM = null } = opts;
  const keys: string[] = [];
  const groups: Float64Array[] = [];
  const counts: Record<string, number> = {};
  for (const [key, values] of byTemplate) {
    if (Object.hasOwn(counts, key)) throw new RangeError(`aggregateClustered: template key ${key} appears twice`);
    if (values.length === 0) throw new RangeError(`aggregateClustered: template ${key} has no logits`);
    keys.push(key);
    groups.push(Float64Array.from(values));
    counts[key] = values.length;
  }
  const T = keys.length;
  if (T === 0) throw new RangeError("aggregateClustered: no templates to aggregate");
  if (!(trim >= 0 && trim < 0.5)) throw new RangeError(`aggregateClustered: trim must be in [0, 0.5), got ${trim}`);
  if (!(Number.isInteger(B) && B >= 1))
    throw new RangeError(`aggregateClustered: B must be a positive integer, got ${B}`);
  if (fixedM !== null && !(Number.isInteger(fixedM) && fixedM >= 1))
    throw new RangeError(`aggregateClustered: fixedM must be a positive integer or null, got ${fixedM}`);

  const seed = parseSeed(opts.seed);
  const rng = defaultRng(seed);
  const means = groups.map((g) => npMean(g));
  const ellHat = centerOf(means, center, trim);
  const dist = clusterBootstrap(groups, {
    B,
    rng,
    sizes: fixedM === null ? undefined : groups.map(() => fixedM),
    center: center === "trimmed" ? (m) => trimmedCenterInPlace(m, trim) : (m) => npMean(m),
  });
  const sorted = Float64Array.from(dist).sort();
  const rawLo = percentileSorted(sorted, 2.5);
  const rawHi = percentileSorted(sorted, 97.5);
  const lo = Math.min(rawLo, ellHat);
  const hi = Math.max(rawHi, ellHat);
  const loP = sigmoid(lo);
  const hiP = sigmoid(hi);
  const sizes = groups.map((g) => g.length);
  return {
    ell_hat: ellHat,
    ci_logit: [lo, hi],
    ci_logit_raw: [rawLo, rawHi],
    prob_true_rpl: sigmoid(ellHat),
    ci95: [loP, hiP],
    ci_width: hiP - loP,
    is_stable: hiP - loP <= 0.2,
    template_means: means,
    dist,
    diagnostics: {
      method:
        center === "trimmed" ? "equal_by_template_cluster_bootstrap_trimmed" : "equal_by_template_cluster_bootstrap",
      B,
      center,
      trim,
      bootstrap_seed: seed.toString(),
      n_templates: T,
      counts_by_template: counts,
      imbalance_ratio: Math.max(...sizes) / Math.min(...sizes),
      template_iqr_logit: percentile(means, 75) - percentile(means, 25),
    },
  };
}
