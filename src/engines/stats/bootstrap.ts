/**
 * Equal-by-cluster bootstrap with numpy's draw order (spec rpl.md §9 step 5). Each replicate:
 *   1. pick T clusters with replacement: `rng.choice(keys, size=T)`, the same stream as `integers(0, T, T)`;
 *   2. for each picked cluster in order, draw `integers(0, len, size=m)` with m = min(size, len) and take
 *      the numpy mean (pairwise sum / m) of those members;
 *   3. apply `center` to the T cluster means.
 * All draws of replicate b come before those of b+1. With T = 1 or a one-member cluster numpy draws
 * nothing for that step, and neither does {@link Pcg64.below}.
 */
import { pairwiseSum } from "./pairwise-sum.ts";
import type { Pcg64 } from "./rng.ts";

export type ClusterBootstrapOptions = {
  /** Number of replicates (B); 0 gives an empty distribution. */
  B: number;
  /** The generator; it is advanced in place so callers can continue the stream. */
  rng: Pcg64;
  /**
   * Statistic of the T resampled cluster means. It receives a scratch buffer it may reorder (e.g. sort
   * in place); the buffer is overwritten on the next replicate, so it must not be kept.
   */
  center: (clusterMeans: Float64Array) => number;
  /** Resample size per cluster (clipped to the cluster's length); default: each cluster's own length. */
  sizes?: readonly number[];
};

/**
 * Cluster bootstrap distribution of `center` (length B, in replicate order).
 * @throws RangeError when there are no clusters, a cluster is empty, B is not a non-negative integer, or a size is not a positive integer.
 */
export function clusterBootstrap(clusters: readonly ArrayLike<number>[], opts: ClusterBootstrapOptions): Float64Array {
  const { B, rng, center, sizes } = opts;
  const T = clusters.length;
  if (T === 0) throw new RangeError("clusterBootstrap: at least one cluster is required");
  if (!(Number.isInteger(B) && B >= 0))
    throw new RangeError(`clusterBootstrap: B must be a non-negative integer, got ${B}`);
  const lens = new Int32Array(T);
  const ms = new Int32Array(T);
  let maxM = 0;
  for (let i = 0; i < T; i++) {
    const len = clusters[i].length;
    if (len === 0) throw new RangeError(`clusterBootstrap: cluster ${i} is empty`);
    const size = sizes ? sizes[i] : len;
    if (!(Number.isInteger(size) && size >= 1))
      throw new RangeError(`clusterBootstrap: sizes[${i}] must be a positive integer, got ${size}`);
    lens[i] = len;
    ms[i] = Math.min(size, len);
    if (ms[i] > maxM) maxM = ms[i];
  }
  const dist = new Float64Array(B);
  const picks = new Int32Array(T);
  const means = new Float64Array(T);
  const draw = new Float64Array(maxM);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) picks[t] = rng.below(T);
    for (let t = 0; t < T; t++) {
      const c = picks[t];
      const group = clusters[c];
      const len = lens[c];
      const m = ms[c];
      for (let j = 0; j < m; j++) draw[j] = group[rng.below(len)];
      means[t] = pairwiseSum(draw, 0, m) / m;
    }
    dist[b] = center(means);
  }
  return dist;
}
