/**
 * Paired (item) bootstrap percentile interval: resample the n item indices with replacement, evaluate
 * the statistic on each resample, and take the (1−c)/2 and 1−(1−c)/2 percentiles of the resulting
 * distribution (Efron & Tibshirani 1993, "An Introduction to the Bootstrap", §13.3). Resampling
 * indices, not values, keeps the pairing: index i picks item i's outcome in both runs at once.
 *
 * Draws come from the repo's numpy-compatible generator (`defaultRng(seed)`, `integers(0, n)` per
 * index, resample after resample), so an interval is reproducible from its seed; percentiles are
 * numpy's linear interpolation.
 */
import { percentileSorted } from "./percentile.ts";
import { defaultRng } from "./rng.ts";

export type PairedBootstrapOptions = {
  /** Two-sided confidence level in (0, 1). */
  confidence: number;
  /** Number of resamples; default 2000. */
  resamples?: number;
  /** Generator seed (non-negative safe integer); default 0. */
  seed?: number;
};

/**
 * Percentile interval of `statistic` over bootstrap resamples of the indices 0..n−1. `statistic`
 * receives a scratch buffer of n indices that is overwritten on the next resample (read it, don't keep
 * it). A resample whose statistic is NaN (e.g. an undefined ratio) is left out of the distribution.
 * Returns null when n < 2 (no variability to resample) or every resample gave NaN.
 * @throws RangeError when n is not an integer, confidence is not in (0, 1), or resamples is not a positive integer.
 */
export function pairedBootstrapCi(
  n: number,
  statistic: (indices: Uint32Array) => number,
  opts: PairedBootstrapOptions,
): [number, number] | null {
  const { confidence, resamples = 2000, seed = 0 } = opts;
  if (!Number.isInteger(n)) throw new RangeError(`pairedBootstrapCi: n must be an integer, got ${n}`);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`pairedBootstrapCi: confidence must be in (0, 1), got ${confidence}`);
  if (!(Number.isInteger(resamples) && resamples >= 1))
    throw new RangeError(`pairedBootstrapCi: resamples must be a positive integer, got ${resamples}`);
  if (n < 2) return null;
  const rng = defaultRng(seed);
  const indices = new Uint32Array(n);
  const dist = new Float64Array(resamples);
  let kept = 0;
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) indices[i] = rng.below(n);
    const v = statistic(indices);
    if (!Number.isNaN(v)) dist[kept++] = v;
  }
  return percentileInterval(dist.subarray(0, kept), confidence);
}

/**
 * The percentile interval of a bootstrap distribution as {@link pairedBootstrapCi} takes it: NaNs left
 * out, the (1−c)/2 and 1−(1−c)/2 percentiles (numpy's linear interpolation) of the rest; null when
 * nothing is left. For several statistics of the same resamples, each one's values can be kept and
 * passed here, with the same result as a second bootstrap of the same seed, without drawing again.
 * `dist` is sorted in place.
 * @throws RangeError when confidence is not in (0, 1).
 */
export function percentileInterval(dist: Float64Array, confidence: number): [number, number] | null {
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`percentileInterval: confidence must be in (0, 1), got ${confidence}`);
  let kept = 0;
  for (let b = 0; b < dist.length; b++) if (!Number.isNaN(dist[b])) dist[kept++] = dist[b];
  if (kept === 0) return null;
  const sorted = dist.subarray(0, kept).sort();
  const tail = (1 - confidence) / 2;
  return [percentileSorted(sorted, 100 * tail), percentileSorted(sorted, 100 * (1 - tail))];
}
