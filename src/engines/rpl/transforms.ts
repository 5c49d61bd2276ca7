/**
 * Probability ↔ logit transforms of the frozen estimator (spec rpl.md §7). The clip bounds keep p = 0 and
 * p = 1 finite (±13.815509557963773), so a model answering "0" still contributes a bounded logit.
 * JS `Math.log`/`Math.exp` may differ from glibc by about 1 ulp (§18.9).
 */

const P_MIN = 1e-6;
const P_MAX = 1 - 1e-6;

/** ln(p/(1−p)) after clipping p to [1e-6, 1−1e-6]. NaN stays NaN. */
export function logit(p: number): number {
  const q = Math.min(Math.max(p, P_MIN), P_MAX);
  return Math.log(q / (1 - q));
}

/** 1/(1+exp(−x)) after clipping x to [−709, 709] (keeps exp finite). NaN stays NaN. */
export function sigmoid(x: number): number {
  const y = Math.min(Math.max(x, -709), 709);
  return 1 / (1 + Math.exp(-y));
}
